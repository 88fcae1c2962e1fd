import { z } from 'zod';
import { PENDING_ALERT_MAX_AGE_MS } from '../../../common/constants.js';
import { detailError } from '../../lib/errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The Idempotency-Key header, lowercased; a clear 400 when it is missing or not a UUID. */
export function idempotencyKey(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value?.trim()) {
    throw detailError(
      400,
      'The Idempotency-Key header is required: a UUID that identifies this alert, so a retried request is never sent twice.',
      'idempotency_key_required',
    );
  }
  if (!UUID.test(value.trim())) {
    throw detailError(400, 'The Idempotency-Key header must be a UUID.', 'idempotency_key_invalid');
  }
  return value.trim().toLowerCase();
}

/** How far a fix time may lie behind the server's clock: a press queued offline is replayed for up to 24 hours. */
export const FIX_MAX_AGE_MS = PENDING_ALERT_MAX_AGE_MS + 60 * 60_000;
/** How far a fix time may lie ahead of the server's clock (a phone's clock a little fast). */
export const FIX_MAX_AHEAD_MS = 10 * 60_000;

/** A fix time as epoch milliseconds, from an ISO 8601 string or epoch milliseconds. */
export const fixTime = z.unknown().transform((value, ctx) => {
  if (value === undefined || value === null) {
    ctx.addIssue({ code: 'custom', message: 'This field is required.' });
    return z.NEVER;
  }
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0) {
    ctx.addIssue({ code: 'custom', message: 'Enter an ISO 8601 date-time or epoch milliseconds.' });
    return z.NEVER;
  }
  return Math.round(ms);
});

/**
 * The one rule for every fix time (the alert's and the live updates'): within
 * FIX_MAX_AGE_MS before and FIX_MAX_AHEAD_MS after the server's time. Returns the problem, or null.
 */
export function fixTimeProblem(ms: number, now: number): string | null {
  if (ms > now + FIX_MAX_AHEAD_MS) return "The fix time is in the future: check the phone's clock.";
  if (ms < now - FIX_MAX_AGE_MS) return 'The fix time is too old: send a current position.';
  return null;
}

const location = z.object({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  accuracy: z.number().min(0).max(1e7),
  captured_at: fixTime,
});

/** `POST /api/emergency/public/{token}/alerts/` body. */
export const alertBody = z.object({
  mode: z.enum(['real', 'test']),
  location: location.nullish(),
  location_error: z.enum(['denied', 'unavailable', 'timeout', 'unsupported']).nullish(),
  /** Test alerts only: the one contact (an id from the page's contacts) who gets the test SMS. */
  contact_id: z.string().min(1).max(64).nullish(),
});

export type AlertBody = z.infer<typeof alertBody>;
