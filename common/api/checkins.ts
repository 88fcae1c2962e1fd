/**
 * Check-in routes: the emergency page starts a timer the server holds, sends its position
 * while open, extends or ends it ("I'm safe", with the PIN when one is set). Not ended by its
 * due time and grace, it sends a real alert by itself. The personal token starts one; only the
 * owner's proof ends, extends or moves it.
 */
import { z } from 'zod';
import { CHECKIN_NOTE_MAX, CHECKIN_SECONDS } from '../constants.js';
import { alertHeaders, alertLocation, tokenParams } from './alert-request.js';
import { checkinsRoutes } from './routes.js';
import { type Contract, errorResponses, noContent, operation, SECURITY } from './shared.js';

const seconds = z.number().int().min(CHECKIN_SECONDS.min).max(CHECKIN_SECONDS.max);

export const checkinStart = z
  .object({
    duration_seconds: seconds.describe('Seconds until it is due (60 to 86,400).'),
    note: z.string().trim().max(CHECKIN_NOTE_MAX).nullish().describe('What the contacts read if it fires (≤ 140).'),
    location: alertLocation.nullish(),
  })
  .meta({ id: 'CheckinStart' });
export type CheckinStart = z.output<typeof checkinStart>;

export const CHECKIN_STATUSES = ['running', 'overdue', 'done', 'fired'] as const;

export const checkinView = z
  .object({
    id: z.string(),
    status: z
      .enum(CHECKIN_STATUSES)
      .describe('`running` until due, `overdue` during the grace, then `fired` (the alert went out), or `done`.'),
    due_at: z.string().describe('When it is due (ISO 8601).'),
    grace_seconds: z.number().int().describe('How long after the due time the alert waits for "I’m safe".'),
    fires_at: z.string().describe('When the alert goes out unless ended: the due time and the grace.'),
    note: z
      .string()
      .nullable()
      .describe('The note it was started with; null to the link alone once it fired, or when the owner started it.'),
    created_at: z.string(),
    ended_at: z.string().nullable(),
    alert_id: z
      .string()
      .nullable()
      .describe(
        'The alert it sent (fired), with its live page at `/a/{alert_public_id}`; only with the owner’s proof (null to the link alone, which never follows the owner).',
      ),
    alert_public_id: z.string().nullable(),
  })
  .meta({ id: 'Checkin' });
export type CheckinView = z.output<typeof checkinView>;

const tokenCheckinParams = tokenParams.extend({ id: z.string().describe('The check-in’s id.') });

const checkinPin = z.string().max(16).nullish().describe('The check-in PIN, when the owner set one.');

export const checkinExtend = z
  .object({
    seconds: seconds.describe('Seconds added to the due time; a check-in lasts a day at most in all.'),
    pin: checkinPin,
  })
  .meta({ id: 'CheckinExtend' });

export const checkinDone = z.object({ pin: checkinPin }).meta({ id: 'CheckinDone' });

export const checkinDoneAnswer = z.object({ status: z.literal('done') }).meta({ id: 'CheckinEnded' });

/** A browser's Web Push subscription (`PushSubscription.toJSON()`), for check-in reminders. */
export const pushSubscription = z
  .object({
    endpoint: z.string().max(1000).describe('The push service URL: https, on a public address.'),
    keys: z.object({
      p256dh: z.string().regex(/^[A-Za-z0-9_-]{80,100}=*$/, 'Not a P-256 public key in base64url.'),
      auth: z.string().regex(/^[A-Za-z0-9_-]{16,32}=*$/, 'Not an auth secret in base64url.'),
    }),
  })
  .meta({ id: 'PushSubscription' });

const checkins = { tags: ['checkins'] } as const;

export const checkinsApi = {
  start: {
    ...checkinsRoutes.start,
    ...operation('startCheckin', 'Start a check-in', SECURITY.link),
    ...checkins,
    description:
      'Starts a check-in. The same Idempotency-Key again answers 200 with the same check-in; another body under it, 422. One at a time per owner: 409 `checkin_running`. Needs an active plan (402) and a confirmed e-mail (403), like alerts.',
    params: tokenParams,
    headers: alertHeaders,
    body: checkinStart,
    response: { 200: checkinView, 201: checkinView, ...errorResponses(400, 402, 403, 404, 409, 422, 429) },
  },
  current: {
    ...checkinsRoutes.current,
    ...operation('getCurrentCheckin', 'Get the current check-in', SECURITY.link),
    ...checkins,
    description: 'The latest check-in that is running or overdue, or ended in the last hour; 404 when none.',
    params: tokenParams,
    response: { 200: checkinView, ...errorResponses(404, 429) },
  },
  location: {
    ...checkinsRoutes.location,
    ...operation('addCheckinPosition', 'Add a position to a check-in', SECURITY.ownerProof),
    ...checkins,
    description:
      'The last known position, sent by the page while it is open (at most every 30 s). Needs the owner’s proof (403 `owner_proof_required`). A fix dated more than 2 minutes ahead of the server’s clock is 400; one a little ahead counts as taken now, so none passes for newer than a later one.',
    params: tokenCheckinParams,
    body: alertLocation,
    response: { 204: noContent, ...errorResponses(400, 403, 404, 409, 429) },
  },
  extend: {
    ...checkinsRoutes.extend,
    ...operation('extendCheckin', 'Move a check-in’s due time on', SECURITY.ownerProof),
    ...checkins,
    description:
      'Moves the due time on (an overdue check-in runs again). Needs the owner’s proof (403 `owner_proof_required`) and, with a PIN set, the PIN, counted like "I’m safe"’s. 409 `checkin_ended` when it already fired or ended.',
    params: tokenCheckinParams,
    body: checkinExtend,
    response: { 200: checkinView, ...errorResponses(400, 403, 404, 409, 429) },
  },
  done: {
    ...checkinsRoutes.done,
    ...operation('endCheckin', 'End a check-in: “I’m safe”', SECURITY.ownerProof),
    ...checkins,
    description:
      '"I’m safe": ends the check-in. Needs the owner’s proof (`Authorization: Bearer` of the owner’s session or an `X-Alerta-Device-Key`; 403 `owner_proof_required`) and, with a PIN set, the PIN as well (403 `wrong_pin`). Wrong PINs are counted per owner: the fifth within an hour, on any of the owner’s check-ins, fires the check-in and PINs are refused until that hour is over (403 `pin_locked`, with Retry-After). 409 `checkin_fired` when its alert already went out (then the all-clear is the way to end it).',
    params: tokenCheckinParams,
    body: checkinDone,
    response: { 200: checkinDoneAnswer, ...errorResponses(400, 403, 404, 409, 429) },
  },
  subscribePush: {
    ...checkinsRoutes.subscribePush,
    ...operation('subscribeToReminders', 'Receive check-in reminders on this browser (Web Push)', SECURITY.deviceKey),
    ...checkins,
    description:
      'Registers a browser for the owner’s check-in reminders (Web Push). Needs the owner’s proof (403 `owner_proof_required`) and a device key of theirs (403 `device_key_required`): one subscription per device key, replaced by the device’s next one and removed with the key. The endpoint must be https on a public address; at most 4 devices per owner, a fifth refused (409 `push_subscriptions_full`), none dropped; the same endpoint again updates its keys. Subscriptions the push service says are gone are deleted.',
    params: tokenParams,
    body: pushSubscription,
    response: { 201: noContent, ...errorResponses(400, 403, 404, 409, 429) },
  },
} as const satisfies Contract<typeof checkinsRoutes>;
