import { LANGUAGES, type Language } from './constants.js';

/**
 * The emergency page's countdown written into `alert.html` by whoever answers the navigation:
 * the server from the database, or the service worker from the copy the page keeps in
 * IndexedDB. The person sees the countdown and Cancel with the HTML itself, before any script
 * has loaded; the page's script then takes over the same countdown. Before it runs, Cancel is
 * a form that reopens the page with `?cancelled=1`, so it works without script too.
 */

/** The id of the JSON block holding the page's data, and where it came from (`data-source`). */
export const SHELL_DATA_ID = 'alert-page-data';
/** The query parameter of the shell's Cancel: the page opens cancelled. */
export const CANCELLED_PARAM = 'cancelled';
/** Where the emergency page keeps its data in IndexedDB (idb-keyval database and store names). */
export const PAGE_DB = { database: 'alerta-page', store: 'data' } as const;
export const ALERT_DB = { database: 'alerta-alerts', store: 'alerts' } as const;

/** Who wrote the shell's data: the server just now, or the worker from the page's last copy. */
export type ShellSource = 'server' | 'cache';

/** The shell's strings, in both languages; the page's own strings (src/alert/i18n.ts) are these. */
export const SHELL_STRINGS = {
  pt: {
    forOwner: (name: string) => `Alerta de ${name}`,
    countdown: (s: number) => `O alerta sai em ${s} s`,
    cancel: 'Cancelar',
    notEmergency: 'O Alerta não substitui o 112.',
  },
  en: {
    forOwner: (name: string) => `Alert from ${name}`,
    countdown: (s: number) => `The alert goes out in ${s} s`,
    cancel: 'Cancel',
    notEmergency: 'Alerta does not replace 112 or 911.',
  },
} satisfies Record<Language, unknown>;

/** What the shell reads of the page's data (`GET /api/emergency/public/{token}/`). */
export interface ShellPage {
  owner_name: string;
  language: string;
  countdown_seconds: number;
}

/** The last alert pressed on the token, as the page stores it (only what the shell decides on). */
export interface ShellAlert {
  pressed_at: number;
  result?: unknown;
}

/**
 * Whether opening the page starts a countdown, as the page itself decides: not while an alert
 * pressed earlier still waits to be accepted, nor just after one was sent, nor with no countdown.
 */
export function countdownDue(
  page: ShellPage,
  stored: ShellAlert | undefined,
  now: number,
  limits: { pendingMs: number; recentMs: number },
): boolean {
  if (!(page.countdown_seconds > 0)) return false;
  if (!stored) return true;
  const age = now - stored.pressed_at;
  return stored.result ? age >= limits.recentMs : age >= limits.pendingMs;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON safe inside a `<script type="application/json">` block: no `<` to end it early. */
const jsonInScript = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * `html` (the built `alert.html`) with the countdown in its root and `page` beside it as JSON.
 * Unchanged when the page has no empty root to fill.
 */
export function withCountdownShell(html: string, page: ShellPage, source: ShellSource): string {
  const root = '<div id="root"></div>';
  if (!html.includes(root)) return html;
  const language: Language = (LANGUAGES as readonly string[]).includes(page.language)
    ? (page.language as Language)
    : 'pt';
  const s = SHELL_STRINGS[language];
  // `#checkin` and `#daily` (opened from a reminder: no countdown) hide it by CSS before the script runs.
  const shell =
    `<main class="alert-page phase-countdown"><h1>${escapeHtml(s.forOwner(page.owner_name))}</h1>` +
    '<i id="checkin" hidden></i><i id="daily" hidden></i><section class="countdown" aria-live="assertive">' +
    `<p class="big" data-testid="countdown">${escapeHtml(s.countdown(page.countdown_seconds))}</p>` +
    `<form method="get"><input type="hidden" name="${CANCELLED_PARAM}" value="1">` +
    `<button type="submit" class="button cancel">${escapeHtml(s.cancel)}</button></form></section>` +
    `<p class="hint">${escapeHtml(s.notEmergency)}</p></main>`;
  const data = `<script type="application/json" id="${SHELL_DATA_ID}" data-source="${source}">${jsonInScript(page)}</script>`;
  // Replaced through functions: a `$` in a name must not be read as a replacement pattern.
  return html
    .replace(/<html lang="[a-z]+"/, () => `<html lang="${language}"`)
    .replace(root, () => `<div id="root">${shell}</div>${data}`);
}
