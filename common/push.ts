/**
 * What a Web Push notification carries, one definition for the server that sends it
 * (server/features/checkins/reminder.ts) and the service worker that shows it (sw/push.ts).
 */

/** The notification's payload: the texts shown and what its actions need. */
export interface PushPayload {
  title: string;
  body: string;
  data: CheckinReminderData | DailyReminderData;
}

/** An overdue check-in's reminder. */
export interface CheckinReminderData {
  kind: 'checkin-reminder';
  checkin_id: string;
  /** The personal token: "I'm safe" is `POST …/checkins/{checkin_id}/done/` under it. */
  token: string;
  /** The emergency page, opened by "Open" (and by "I'm safe" when a PIN is needed). */
  url: string;
  language: 'pt' | 'en';
  /** '1' when a check-in PIN is set: the notification cannot ask for it, so "I'm safe" opens the page. */
  pin: '0' | '1';
}

/**
 * A daily check-in's reminder. "I'm OK" needs the page's device key, which the worker cannot read:
 * the notification (its "I'm OK" action too) opens the emergency page as a reminder does (no
 * countdown), on its "I'm OK today" button.
 */
export interface DailyReminderData {
  kind: 'daily-reminder';
  token: string;
  /** The emergency page, opened as from a reminder (`#checkin`: no countdown). */
  url: string;
  language: 'pt' | 'en';
}

/** The daily reminder's action, in the owner's language. */
export const DAILY_ACTIONS = { pt: { ok: 'Estou bem' }, en: { ok: 'I’m OK' } } as const;

/** The notification's action buttons, in the owner's language. */
export const REMINDER_ACTIONS = {
  pt: { safe: 'Estou bem', open: 'Abrir' },
  en: { safe: 'I’m safe', open: 'Open' },
} as const;

/**
 * The fragment of the emergency page's address in a reminder (push and e-mail): the page opens
 * without the alert countdown, since it is opened to say "I'm safe", not to press.
 */
export const CHECKIN_REMINDER_HASH = '#checkin';
