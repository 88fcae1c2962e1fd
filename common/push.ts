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
  /** The personal token "I'm OK" is posted under (PERSONAL_TOKEN_SHAPE, checked before the key goes). */
  token: string;
  /**
   * The owner, opaque (a digest of their id): the notification's tag, so two accounts on one
   * browser each keep their own reminder. Absent from reminders sent before it existed.
   */
  owner?: string;
  /** The emergency page; only its path is opened (same origin), with DAILY_REMINDER_HASH. */
  url: string;
  language: 'pt' | 'en';
}

/**
 * The daily reminder's action, and the notification that replaces it once "I'm OK" went, in the
 * owner's language: done; queued where Background Sync sends it when the network returns
 * (`queued`), or where the queue goes only when Alerta opens (`queuedOpen`: Safari, Firefox);
 * or, when the page could not be opened either, a tap that opens it (`failed`).
 */
export const DAILY_ACTIONS = {
  pt: {
    ok: 'Estou bem',
    done: 'Check-in feito. Obrigado!',
    queued: 'Check-in guardado: é enviado quando a rede voltar, com a hora em que tocou.',
    queuedOpen: 'Check-in guardado: abra o Alerta quando tiver rede para o enviar, com a hora em que tocou.',
    failed: 'Não foi possível fazer o check-in — toque para abrir',
  },
  en: {
    ok: 'I’m OK',
    done: 'Checked in. Thank you!',
    queued: 'Check-in saved: it goes when the network returns, with the time you tapped.',
    queuedOpen: 'Check-in saved: open Alerta when you are back online to send it, with the time you tapped.',
    failed: 'Couldn’t check in — tap to open',
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

/**
 * A personal token's shape (base64url, as the server makes it and as the emergency page's
 * route takes it): nothing else becomes a path the worker attaches the device key to.
 */
export const PERSONAL_TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,200}$/;

/**
 * What this browser notes about the reminders in localStorage, removed with the device key
 * (src/lib/device-key.ts): the subscription registered and under which key
 * (src/alert/reminders-here.ts), and that "I'm OK today" already offered notifications (src/alert/DailyOk.tsx).
 */
export const REMINDERS_REGISTERED_KEY = 'alerta.push-registered';
export const OFFERED_ON_TAP_KEY = 'alerta.daily-push-offered';
