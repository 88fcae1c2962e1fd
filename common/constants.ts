/** Timeouts, delays, limits and storage keys, with their units. SPEC §9 delays live here. */

/** Redirect to /verify-email after registration (ms). */
export const REGISTER_REDIRECT_MS = 1500;
/** Redirect to /login after resending the verification mail (ms). */
export const RESEND_REDIRECT_MS = 2000;
/** Redirect to /login after a password reset (ms). */
export const RESET_REDIRECT_MS = 2500;
/** Redirect to /register after deleting the account (ms). */
export const DELETE_ACCOUNT_REDIRECT_MS = 150;
/** The home page's loading state (ms). */
export const HOME_LOADING_MS = 100;
/** Debounce of the phone input's country search (ms). */
export const COUNTRY_SEARCH_DEBOUNCE_MS = 250;
/** Toasts kept at most. */
export const MAX_TOASTS = 20;

/** localStorage key of the chosen language. */
export const LANG_STORAGE_KEY = 'lang';
/** The cookie repeating the chosen language, so the server sends a page drawn in it (PRERENDERED_ROUTES). */
export const LANG_COOKIE = 'lang';
export const LANGUAGES = ['pt', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'pt';
/** `value` when it is one of LANGUAGES, else the default language. */
export const asLanguage = (value: unknown): Language =>
  (LANGUAGES as readonly unknown[]).includes(value) ? (value as Language) : DEFAULT_LANGUAGE;
export const FALLBACK_LANGUAGE: Language = 'en';

/**
 * The plans' terms as the server's defaults: each can be set in its environment (TRIAL_DAYS,
 * BASIC_CONTACT_LIMIT, BASIC_PRICE_EUR, …) and the app shows what GET /api/config/ answers,
 * using these only until that answer arrives.
 */
/** Trial length (days), card required; renews into paid premium unless cancelled. */
export const TRIAL_DAYS = 3;
/** Monthly price of each plan (EUR). */
export const PLAN_PRICES_EUR = { basic: 3, premium: 5 } as const;
/** Contacts alerted on each plan (the trial is premium). */
export const PLAN_CONTACT_LIMITS = { basic: 3, premium: 10 } as const;
/** Price of each SMS sent (EUR). */
export const SMS_PRICE_EUR = 0.08;

/** Alert countdown choices (s) and the default. */
export const COUNTDOWN_CHOICES = [0, 3, 5, 10] as const;
export const DEFAULT_COUNTDOWN_SECONDS = 5;

export const PASSWORD_MIN_LENGTH = 8;
export const CONTACT_NAME_MIN = 2;
export const CONTACT_NAME_MAX = 50;
export const PHONE_MIN_DIGITS = 9;
export const PHONE_MAX_DIGITS = 15;

/** localStorage keys of the session's access and refresh tokens. */
export const ACCESS_TOKEN_KEY = 'alerta.access';
export const REFRESH_TOKEN_KEY = 'alerta.refresh';
/** localStorage key of the user as last fetched (shown when the server cannot be reached at start). */
export const USER_CACHE_KEY = 'alerta.user';
/**
 * localStorage key of this device's key (`{key, user}`): issued by the server to the signed-in
 * owner, read by the emergency page of the same origin and sent as `X-Alerta-Device-Key`.
 */
export const DEVICE_KEY_STORAGE_KEY = 'alerta.device-key';
/** The alert POST's header carrying the owner's device key. */
export const DEVICE_KEY_HEADER = 'X-Alerta-Device-Key';
/** How long a toast stays on screen (ms). */
export const TOAST_MS = 5000;

/** Emergency page: the longest wait for a first GPS fix once the countdown ends (ms). */
export const FIRST_FIX_WAIT_MS = 3000;
/**
 * Emergency page: the service worker, holding a press while the page waits for a fix, sends it
 * itself this long after the wait should have ended (ms), in case the tab was closed meanwhile.
 */
export const PRESS_HOLD_MARGIN_MS = 2000;
/**
 * Emergency page: while its alert POST is on its way (past the service worker where the browser
 * routes it so), the worker holds the press and sends it itself this long after, unless the page
 * has said it was answered: a tab closed mid-request still alerts (ms). The Idempotency-Key makes
 * a send that overlaps the page's own harmless.
 */
export const SENDING_HOLD_MS = 10_000;
/** How long a page waits for a newly installed service worker to take control (ms). */
export const WORKER_READY_WAIT_MS = 10_000;
/** Emergency page: how often delivery statuses are polled after sending (ms), and for how long (ms). */
export const STATUS_POLL_MS = 2000;
export const STATUS_POLL_FOR_MS = 10 * 60_000;
/** Emergency page: how often a queued alert is retried while the browser reports a network (ms). */
export const QUEUED_RETRY_MS = 15_000;
/** A queued alert older than this is dropped rather than sent late (ms); the service worker keeps it as long. */
export const PENDING_ALERT_MAX_AGE_MS = 24 * 60 * 60_000;
/**
 * Reopening the emergency page this soon after a sent alert (a reload, a tap on the icon again)
 * shows that alert instead of a new countdown (ms); later, opening it is a new press.
 */
export const RECENT_ALERT_MS = 2 * 60_000;

/** Live page: the emergency page sends its position this often while open (ms)… */
export const LIVE_UPDATE_MS = 30_000;
/** …or sooner when it has moved this far (m), but never more often than this (ms)… */
export const LIVE_MOVE_METRES = 50;
export const LIVE_MIN_UPDATE_MS = 10_000;
/** …for at most this long after the alert (ms); the server refuses updates after it. */
export const LIVE_TRACKING_MS = 60 * 60_000;
/** A live page shows nothing this long after the alert ended, or after its last update (ms). */
export const LIVE_PAGE_TTL_MS = 24 * 60 * 60_000;
/** Live positions and responders are deleted this long after they were recorded (ms). */
export const LIVE_RETENTION_MS = 30 * 24 * 60 * 60_000;
/** Where server-sent events are unavailable, live pages poll this often (ms). */
export const LIVE_POLL_MS = 3000;

/** How long a check-in may run: a minute to a day, extensions included. */
export const CHECKIN_SECONDS = { min: 60, max: 86_400 } as const;
/** The note the owner may leave for their contacts. */
export const CHECKIN_NOTE_MAX = 140;
/** Wrong PINs to "I'm safe" before the check-in fires. */
export const CHECKIN_WRONG_PINS = 5;

/** The owner's own wait before an unanswered real alert phones the contacts (seconds); 0 turns it off. */
export const ESCALATION_SECONDS = { min: 60, max: 1800 } as const;

/** How long after an invitation SMS the owner may ask for another to the same contact (ms). */
export const REINVITE_AFTER_MS = 7 * 24 * 60 * 60_000;
