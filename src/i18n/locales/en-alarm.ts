import type { alarm as pt } from './pt-alarm';

/** The owner's open alerts, on the home page (part of en.ts) and on the emergency page (src/alert/live-strings.ts). */
export const alarm: typeof pt = {
  alarm: {
    title: 'Active alerts',
    why: {
      button: 'Alert sent at {{time}}.',
      missed_daily: 'You missed your daily check-in: your contacts were alerted at {{time}}.',
      missed_checkin: 'Your check-in was not ended: your contacts were alerted at {{time}}.',
    },
    since: 'No sign from you since {{when}}.',
    onTheWay: 'Who is on the way',
    nobody: 'Nobody has answered yet.',
    someone: 'Someone',
    responder: '{{name}} is on the way ({{time}})',
    via: { link: 'through a contact’s own link', sms: 'by SMS', call: 'by the call' },
    safe: "I'm safe",
    confirmTitle: 'End the alert?',
    confirmBody: 'Your contacts’ page says you are safe and nobody is phoned.',
    notify: 'Tell my contacts by SMS that I am safe',
    confirm: "Yes, I'm safe",
    back: 'Back',
    resolving: 'Ending the alert…',
    resolved: 'Alert ended: you are safe.',
    allClearSent: 'Your contacts will get an SMS saying you are safe.',
    failed: 'Could not end the alert. Check the network and try again.',
  },
};
