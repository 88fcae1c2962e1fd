import type { CheckinView } from '../../../common/api/checkins';
import { pathOf } from '../../../common/api/paths';
import { checkinsRoutes } from '../../../common/api/routes';
import { type Answer, call, ownerProof } from '../api';
import type { Fix } from '../geo';

export type { CheckinView };

/** A check-in call's answer (the page's `Answer`: the HTTP status when it went through, the code when refused). */
export type CheckinAnswer<T> = Answer<T>;

/** The Idempotency-Key of a check-in's "I'm safe": the service worker keeps one queued entry per key. */
export const doneKey = (id: string) => `checkin-done-${id}`;

/**
 * A check-in route, with the owner's proof (this device's key): "I'm safe", an extension and a
 * position are refused without it, and it passes a ceiling a flooder filled. A queued "I'm safe"
 * keeps it: the service worker's queue stores the whole request, headers included.
 */
const request = <T>(route: { method: string }, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call<T>(path, {
    method: route.method,
    cache: 'no-store',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...ownerProof(), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

export interface StartBody {
  duration_seconds: number;
  note?: string;
  location?: Fix | null;
}

export const startCheckin = (token: string, key: string, body: StartBody) =>
  request<CheckinView>(checkinsRoutes.start, pathOf(checkinsRoutes.start, { token }), body, {
    'idempotency-key': key,
  });

export const currentCheckin = (token: string) =>
  request<CheckinView>(checkinsRoutes.current, pathOf(checkinsRoutes.current, { token }));

export const sendCheckinLocation = (token: string, id: string, fix: Fix) =>
  request<null>(checkinsRoutes.location, pathOf(checkinsRoutes.location, { token, id }), fix);

/** Moves the due time on; with a PIN set, the PIN goes with it (the server asks it as for "I'm safe"). */
export const extendCheckin = (token: string, id: string, seconds: number, pin?: string) =>
  request<CheckinView>(checkinsRoutes.extend, pathOf(checkinsRoutes.extend, { token, id }), {
    seconds,
    ...(pin ? { pin } : {}),
  });

/**
 * "I'm safe". It goes through the service worker's queue like an alert: 202 `queued` means it
 * waits there for the network, and is sent with the same key when it returns.
 */
export const endCheckin = (token: string, id: string, pin?: string) =>
  request<{ status: 'done' }>(checkinsRoutes.done, pathOf(checkinsRoutes.done, { token, id }), pin ? { pin } : {}, {
    'idempotency-key': doneKey(id),
  });

export const subscribePush = (token: string, subscription: unknown) =>
  request<null>(checkinsRoutes.subscribePush, pathOf(checkinsRoutes.subscribePush, { token }), subscription);
