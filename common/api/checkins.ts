/**
 * Check-in routes: the emergency page starts a timer the server holds, sends its position
 * while open, extends or ends it ("I'm safe", with the PIN when one is set). Not ended by its
 * due time and grace, it sends a real alert by itself. The personal token is the credential.
 */
import { z } from 'zod';
import { CHECKIN_NOTE_MAX, CHECKIN_SECONDS } from '../constants.js';
import { alertHeaders, alertLocation, tokenParams } from './alert-request.js';
import { checkinsRoutes } from './routes.js';
import { type Contract, errorResponses, noContent } from './shared.js';

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
    note: z.string().nullable(),
    created_at: z.string(),
    ended_at: z.string().nullable(),
    alert_id: z
      .string()
      .nullable()
      .describe('The alert it sent (fired), with its live page at `/a/{alert_public_id}`.'),
    alert_public_id: z.string().nullable(),
  })
  .meta({ id: 'Checkin' });
export type CheckinView = z.output<typeof checkinView>;

const tokenCheckinParams = tokenParams.extend({ id: z.string().describe('The check-in’s id.') });

export const checkinExtend = z
  .object({ seconds: seconds.describe('Seconds added to the due time; a check-in lasts a day at most in all.') })
  .meta({ id: 'CheckinExtend' });

export const checkinDone = z
  .object({ pin: z.string().max(16).nullish().describe('The check-in PIN, when the owner set one.') })
  .meta({ id: 'CheckinDone' });

export const checkinDoneAnswer = z.object({ status: z.literal('done') }).meta({ id: 'CheckinDone' });

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
    ...checkins,
    description: 'The latest check-in that is running or overdue, or ended in the last hour; 404 when none.',
    params: tokenParams,
    response: { 200: checkinView, ...errorResponses(404, 429) },
  },
  location: {
    ...checkinsRoutes.location,
    ...checkins,
    description: 'The last known position, sent by the page while it is open (at most every 30 s).',
    params: tokenCheckinParams,
    body: alertLocation,
    response: { 204: noContent, ...errorResponses(400, 404, 409, 429) },
  },
  extend: {
    ...checkinsRoutes.extend,
    ...checkins,
    description:
      'Moves the due time on (an overdue check-in runs again). 409 `checkin_ended` when it already fired or ended.',
    params: tokenCheckinParams,
    body: checkinExtend,
    response: { 200: checkinView, ...errorResponses(400, 404, 409, 429) },
  },
  done: {
    ...checkinsRoutes.done,
    ...checkins,
    description:
      '"I’m safe": ends the check-in. With a PIN set it needs the PIN; the fifth wrong one fires the check-in. 409 `checkin_fired` when its alert already went out (then the all-clear is the way to end it).',
    params: tokenCheckinParams,
    body: checkinDone,
    response: { 200: checkinDoneAnswer, ...errorResponses(400, 403, 404, 409, 429) },
  },
  subscribePush: {
    ...checkinsRoutes.subscribePush,
    ...checkins,
    description:
      'Registers a browser for the owner’s check-in reminders (Web Push). The endpoint must be https on a public address; at most 5 per owner, the oldest dropped; the same endpoint again updates its keys. Subscriptions the push service says are gone are deleted.',
    params: tokenParams,
    body: pushSubscription,
    response: { 201: noContent, ...errorResponses(400, 404, 429) },
  },
} as const satisfies Contract<typeof checkinsRoutes>;
