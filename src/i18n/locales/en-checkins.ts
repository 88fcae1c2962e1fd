import type { checkins as pt } from './pt-checkins';

/** English texts of the check-in PINs, the current check-in and the alert history (part of en.ts). */
export const checkins: typeof pt = {
  checkins: {
    pinsTitle: 'Check-in PINs',
    pinsIntro:
      'A check-in is a timer you start on your emergency page: if you do not end it in time, your contacts get an alert. With a PIN set, ending the check-in (“I’m safe”) asks for that PIN.',
    pinLabel: 'Check-in PIN',
    pinHint: '4 to 8 digits. You are asked for it when you end a check-in.',
    duressLabel: 'Duress PIN',
    duressHint:
      '4 to 8 digits, different from the check-in PIN. If someone forces you to end the check-in, use this one: it looks exactly like the right PIN, but it alerts your contacts and tells them not to call back openly.',
    wrongPins: 'Five wrong PINs in a row also alert your contacts.',
    isSet: 'Set',
    notSet: 'Not set',
    savePin: 'Save check-in PIN',
    saveDuress: 'Save duress PIN',
    clearPin: 'Clear check-in PIN',
    clearDuress: 'Clear duress PIN',
    pinSaved: 'Check-in PIN saved.',
    duressSaved: 'Duress PIN saved.',
    pinCleared: 'Check-in PIN cleared.',
    duressCleared: 'Duress PIN cleared.',
    pinFailed: 'Could not save the PIN. Please try again.',
    invalid_pin: 'A PIN has 4 to 8 digits.',
    same_pin: 'The duress PIN must differ from the check-in PIN.',
    currentTitle: 'Your check-in',
    running: 'Check-in running: due at {{due}}.',
    overdue: 'Check-in overdue since {{due}}.',
    firesAt: 'Unless you end it, your contacts are alerted at {{time}}.',
    done: 'Check-in ended at {{time}}.',
    fired: 'The check-in was not ended in time: your contacts were alerted at {{time}}.',
    openPage: 'Open the emergency page to end the check-in',
    openPageEnded: 'Open the emergency page',
    historyTitle: 'Your alerts',
    historyEmpty: 'You have not sent any alerts yet.',
    historyFailed: 'Could not load your alerts.',
    reasonLabel: 'Reason',
    reason: {
      button: 'Pressed',
      missed_checkin: 'Missed check-in',
      duress: 'Duress PIN',
    },
    mode: { real: 'Real', test: 'Test' },
    deliveries_one: '{{count}} SMS',
    deliveries_other: '{{count}} SMS',
  },
};
