import type { AlertView, EmergencyPage } from '../../common/api/alerts';
import { pathOf } from '../../common/api/paths';
import { alertsRoutes } from '../../common/api/routes';
import { DEVICE_KEY_HEADER, SENDING_HOLD_MS } from '../../common/constants';
import { readDeviceKey } from '../lib/device-key';
import type { AlertBody } from './storage';
import { holdPress, settlePress } from './sw-client';

/**
 * What `GET /api/emergency/public/{token}/` answers: everything the page needs offline. Copies
 * cached before `time_zone`, the contacts' `id`, the check-in fields and `numbers_masked` existed
 * lack them (those all had the full numbers).
 */
export type PageData = Omit<
  EmergencyPage,
  'time_zone' | 'contacts' | 'checkin_pin' | 'push_public_key' | 'numbers_masked'
> & {
  time_zone?: EmergencyPage['time_zone'];
  numbers_masked?: EmergencyPage['numbers_masked'];
  checkin_pin?: EmergencyPage['checkin_pin'];
  push_public_key?: EmergencyPage['push_public_key'];
  contacts: (Omit<EmergencyPage['contacts'][number], 'id'> & { id?: string })[];
};

/** An alert with the status of each delivery, as the server answers it. */
export type AlertResult = AlertView;

/** The server's answer (with its HTTP status), or why there is none: `network` when the request never reached it. */
export type Answer<T> =
  | { ok: true; value: T; status?: number }
  | { ok: false; status: number | 'network'; retryAfter?: number; detail?: string; code?: string };

/** Where a token's alerts are posted. */
export const alertsUrl = (token: string) => pathOf(alertsRoutes.send, { token });

/** The owner's device key as a header, when this device has one: the owner's calls pass a ceiling a flooder filled. */
export function ownerProof(): Record<string, string> {
  const key = readDeviceKey()?.key;
  return key ? { [DEVICE_KEY_HEADER]: key } : {};
}

/** One call of the page's API: a JSON answer (none for 204), or the refusal's status, code, text and Retry-After. */
export async function call<T>(url: string, init?: RequestInit): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers: { accept: 'application/json', ...init?.headers } });
  } catch {
    return { ok: false, status: 'network' };
  }
  const body = (await response.json().catch(() => null)) as (T & { detail?: unknown; code?: unknown }) | null;
  if (response.ok && (body || response.status === 204)) return { ok: true, value: body as T, status: response.status };
  const retry = Number(response.headers.get('retry-after'));
  return {
    ok: false,
    status: response.status,
    ...(retry > 0 ? { retryAfter: retry } : {}),
    ...(typeof body?.detail === 'string' ? { detail: body.detail } : {}),
    ...(typeof body?.code === 'string' ? { code: body.code } : {}),
  };
}

/**
 * The owner, contacts and settings behind a token, with the owner's device key when this device
 * has one: only then are the contacts' numbers whole (for "send from my phone"), else masked.
 */
export const fetchPage = (token: string) =>
  call<PageData>(pathOf(alertsRoutes.page, { token }), {
    method: alertsRoutes.page.method,
    cache: 'no-store',
    headers: ownerProof(),
  });

/** The alert POST's headers: its Idempotency-Key and, when this device has one, the owner's device key. */
export function alertHeaders(key: string, deviceKey?: string | null): Record<string, string> {
  return {
    'content-type': 'application/json',
    'idempotency-key': key,
    ...(deviceKey ? { [DEVICE_KEY_HEADER]: deviceKey } : {}),
  };
}

/**
 * Sends an alert, with the owner's device key when this device has one (the alert is then the
 * owner's own: never refused by a rate limit or withheld by strangers' budgets). `queued` means
 * the service worker kept it to send when the network returns; the queued request keeps its
 * headers, the key too. Where the browser routes this POST past the worker (Chromium), the
 * worker is given the press first, told when the server answered, and handed it when the network
 * or the server failed, to queue; elsewhere the worker's fetch handler queues it (202 `queued`).
 */
export async function postAlert(
  token: string,
  key: string,
  body: AlertBody,
  deviceKey?: string | null,
): Promise<Answer<AlertResult | 'queued'>> {
  const url = alertsUrl(token);
  // The request leaves first; the worker's copy follows it.
  const answering = call<AlertResult>(url, {
    method: alertsRoutes.send.method,
    headers: alertHeaders(key, deviceKey),
    body: JSON.stringify(body),
  });
  const held = holdPress(url, key, body, SENDING_HOLD_MS, deviceKey);
  const answer = await answering;
  if (answer.ok && answer.status === 202) return { ok: true, value: 'queued' };
  if (!answer.ok && (answer.status === 'network' || answer.status >= 500)) {
    if (held && holdPress(url, key, body, 0, deviceKey)) return { ok: true, value: 'queued' };
    return answer;
  }
  if (held) settlePress(key);
  return answer;
}

/** An alert with the current status of each delivery (with the owner's device key, when this device has one). */
export function fetchAlert(token: string, id: string) {
  return call<AlertResult>(pathOf(alertsRoutes.get, { token, id }), {
    method: alertsRoutes.get.method,
    cache: 'no-store',
    headers: ownerProof(),
  });
}

/** A random UUID v4 for the Idempotency-Key, also where `crypto.randomUUID` is missing. */
export function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
