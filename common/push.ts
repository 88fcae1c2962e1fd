/**
 * What a Web Push notification carries, one definition for the server that sends it
 * (server/features/checkins/reminder.ts, server/features/daily/reminder.ts) and the service
 * worker that shows it and acts on it (sw/push.ts).
 */

/** The notification's payload: the texts shown, and what the worker needs when it is tapped. */
export interface PushPayload {
  title: string;
  body: string;
  data: CheckinReminderData | DailyReminderData;
}

/**
 * An overdue check-in's reminder. "I'm safe", "Open" and a tap all open the emergency page on
 * its check-in: ending it needs the PIN when one is set, which a notification cannot ask for.
 */
export interface CheckinReminderData {
  kind: 'checkin-reminder';
  /** One notification per check-in (its tag). */
  checkin_id: string;
  /** The emergency page; only its path is opened (same origin), with CHECKIN_REMINDER_HASH. */
  url: string;
  language: 'pt' | 'en';
}

/**
 * A daily check-in's reminder. Its "I'm OK" checks in from the notification: the worker posts
 * `…/daily/ok/` under `token` with the device key the page mirrors for it (src/lib/device-key.ts),
 * queued when offline; with no key, or refused (403), it opens the page on its "I'm OK today"
 * button, as a tap on the notification does.
 */
export interface DailyReminderData {
  kind: 'daily-reminder';
  /** The personal token "I'm OK" is posted under. */
  token: string;
  /** The emergency page; only its path is opened (same origin), with DAILY_REMINDER_HASH. */
  url: string;
  language: 'pt' | 'en';
}

/** The daily reminder's action, and the notification that replaces it once "I'm OK" went, in the owner's language. */
export const DAILY_ACTIONS = {
  pt: {
    ok: 'Estou bem',
    done: 'Check-in feito. Obrigado!',
    queued: 'Check-in guardado: é enviado quando a rede voltar, com a hora em que tocou.',
  },
  en: {
    ok: 'I’m OK',
    done: 'Checked in. Thank you!',
    queued: 'Check-in saved: it goes when the network returns, with the time you tapped.',
  },
} as const;

/** The check-in reminder's action buttons, in the owner's language. */
export const REMINDER_ACTIONS = {
  pt: { safe: 'Estou bem', open: 'Abrir' },
  en: { safe: 'I’m safe', open: 'Open' },
} as const;

/**
 * The fragment of the emergency page's address in a check-in reminder (push and e-mail): the
 * page opens without the alert countdown, since it is opened to say "I'm safe", not to press.
 */
export const CHECKIN_REMINDER_HASH = '#checkin';

/** The same for the daily check-in's reminder: no countdown, and the page opens on "I'm OK today". */
export const DAILY_REMINDER_HASH = '#daily';

/**
 * Where the page mirrors its device key for the service worker (idb-keyval database and store;
 * the entry is DEVICE_KEY_STORAGE_KEY, as in localStorage): a worker cannot read localStorage.
 */
export const DEVICE_KEY_DB = { database: 'alerta-device', store: 'key' } as const;
