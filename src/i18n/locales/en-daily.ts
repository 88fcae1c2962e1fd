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
    alarm: 'If you haven’t checked in by {{until}}, {{names}} get an SMS.',
    alarmNobody: 'If you haven’t checked in by {{until}}, your contacts get an SMS (you have no contacts yet).',
    and: ' and ',
    nextDue: 'Next check-in due by {{when}}.',
    paused: 'Paused until {{date}}: it resumes by itself.',
    status: {
      off: 'Off',
      waiting: 'Waiting for the next check-in',
      due: 'Check-in due: tap “I’m OK today”',
      missed: 'Check-in missed: your contacts were alerted',
      paused: 'Paused',
    },
    ok: 'I’m OK today',
    okDone: 'Checked in. Thank you!',
    okFailed: 'The check-in failed. Try again.',
  },
};
