import type { daily as pt } from './pt-daily';

/** English texts of the daily check-in (part of en.ts). */
export const daily: typeof pt = {
  daily: {
    title: 'Daily check-in',
    intro:
      'For people who live alone: one tap a day on “I’m OK today”. If a day goes by without it, your contacts get a real alert with your last known position.',
    enabled: 'Turn on the daily check-in',
    time: 'Before',
    everyDays: 'Every how many days',
    grace: 'Minutes of grace before the alert',
    pausedUntil: 'Pause until (travel, a hospital stay with someone)',
    save: 'Save daily check-in',
    saved: 'Daily check-in saved.',
    failed: 'The daily check-in could not be saved. Try again.',
    premium: 'The daily check-in comes with Premium (and its trial).',
    everyDay: 'Every day before {{time}}.',
    everyNDays: 'Every {{count}} days, before {{time}}.',
    alarm_one: 'If you haven’t checked in by {{until}}, {{names}} gets an SMS.',
    alarm_other: 'If you haven’t checked in by {{until}}, {{names}} get an SMS.',
    alarmUnknown: 'If you haven’t checked in by {{until}}, your contacts get an SMS.',
    pausedSentence: 'Paused until {{date}}: nothing is asked and nobody is alerted before then.',
    offSentence: 'Off: nobody is alerted. Once you turn it on and save: {{sentence}}',
    graceHint: 'From 1 to 1440 minutes (24 hours).',
    graceBounds: 'Enter a whole number of minutes, from 1 to 1440.',
    alarmNobody: 'If you haven’t checked in by {{until}}, your contacts get an SMS (you have no contacts yet).',
    and: ' and ',
    nextDue: 'Next check-in due by {{when}}.',
    paused: 'Paused until {{date}}: it resumes by itself.',
    alertsAt: 'Your contacts are alerted at {{time}} unless you tap “I’m OK today”.',
    doneAt: 'Done today at {{time}} ✓',
    status: {
      off: 'Off',
      waiting: 'Waiting for the next check-in',
      due: 'Check-in due: tap “I’m OK today”',
      missed: 'Check-in missed: your contacts were alerted',
      paused: 'Paused',
    },
    push: {
      on: 'This phone gets the daily reminder as a notification, as well as the e-mail.',
      off: 'The daily reminder comes by e-mail. To get it as a notification on this phone too, open your emergency page here and tap “Remind me here”.',
      open: 'Open the emergency page',
      denied:
        'Notifications from Alerta are blocked in this browser: the daily reminder comes by e-mail only. You can allow them in the browser’s settings.',
      unsupported: 'This browser cannot show notifications: the daily reminder comes by e-mail only.',
      homeScreen:
        'On iPhone, the reminder only arrives as a notification with Alerta opened from its home-screen icon (iOS 16.4 or later). The e-mail still comes.',
      noKey:
        'The daily reminder comes by e-mail. To get it as a notification, sign in to Alerta on the phone you use and tap “Remind me here” on your emergency page there.',
    },
    ok: 'I’m OK today',
    okDone: 'Checked in. Thank you!',
    /** While the missed day's alert is open: "I'm OK today" ends it too. */
    okNotify: 'End the alert and tell my contacts by SMS that I am OK',
    okFailed: 'The check-in failed. Try again.',
  },
};
