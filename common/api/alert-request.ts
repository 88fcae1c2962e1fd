/**
 * The alert POST of the emergency page (common/api/alerts.ts): the token in its path, its
 * Idempotency-Key and device key headers, and its body with the fix or why there is none.
 */
import { z } from 'zod';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const IDEMPOTENCY_KEY_REQUIRED =
  'The Idempotency-Key header is required: a UUID that identifies this alert, so a retried request is never sent twice.';
export const IDEMPOTENCY_KEY_INVALID = 'The Idempotency-Key header must be a UUID.';

/** The personal alert token behind the emergency links (unknown or rotated: 404). */
export const tokenParams = z.object({
  token: z
    .string()
    .describe(
      'The token of the owner’s personal emergency link, its credential: whoever holds the link may raise the alarm; lowering it takes the owner’s proof as well.',
    ),
});
/** An alert of the token's owner, by its id or its public id. */
export const tokenAlertParams = tokenParams.extend({ id: z.string().describe('The alert’s id or public id.') });

/**
 * A fix time: an ISO 8601 date-time or epoch milliseconds, as epoch milliseconds. How far it
 * may lie from the server's clock is the server's rule (a press queued offline is replayed later).
 */
export const fixTime = z
  .unknown()
  .transform((value, ctx) => {
    if (value === undefined || value === null) {
      ctx.addIssue({ code: 'custom', message: 'This field is required.', params: { code: 'required' } });
      return z.NEVER;
    }
    const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (!Number.isFinite(ms) || ms < 0) {
      ctx.addIssue({ code: 'custom', message: 'Enter an ISO 8601 date-time or epoch milliseconds.' });
      return z.NEVER;
    }
    return Math.round(ms);
  })
  .meta({
    description: 'When the fix was taken: ISO 8601 or epoch milliseconds.',
    anyOf: [{ type: 'string', format: 'date-time' }, { type: 'number' }],
  });

/** The Idempotency-Key header, trimmed and lowercased; its own 400 codes when missing or not a UUID. */
const idempotencyKey = z
  .unknown()
  .transform((value, ctx) => {
    const key: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof key !== 'string' || !key.trim()) {
      ctx.addIssue({ code: 'custom', message: IDEMPOTENCY_KEY_REQUIRED, params: { code: 'idempotency_key_required' } });
      return z.NEVER;
    }
    if (!UUID.test(key.trim())) {
      ctx.addIssue({ code: 'custom', message: IDEMPOTENCY_KEY_INVALID, params: { code: 'idempotency_key_invalid' } });
      return z.NEVER;
    }
    return key.trim().toLowerCase();
  })
  .meta({
    type: 'string',
    format: 'uuid',
    description: 'A UUID v4 naming this alert: the same key again answers the first alert and sends nothing.',
  });

export const alertHeaders = z.looseObject({
  'idempotency-key': idempotencyKey,
  // Never refused: a key that does not check out only leaves the alert link-only.
  'x-alerta-device-key': z.unknown().optional().meta({
    type: 'string',
    description:
      'Optional: a device key the owner’s session issued (`POST /api/users/me/device-keys/`), proof that the alert is the owner’s. Unknown or foreign keys are ignored.',
  }),
});

export const alertLocation = z
  .object({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    accuracy: z.number().min(0).max(1e7).describe('Radius of the fix in metres.'),
    captured_at: fixTime,
  })
  .meta({ id: 'Fix' });

export const LOCATION_ERRORS = ['denied', 'unavailable', 'timeout', 'unsupported'] as const;
export const locationError = z.enum(LOCATION_ERRORS).describe('Why the page has no position.');

/** `POST /api/emergency/public/{token}/alerts/` body. */
export const alertRequest = z
  .object({
    mode: z.enum(['real', 'test']),
    location: alertLocation.nullish(),
    location_error: locationError.nullish(),
    contact_id: z
      .string()
      .min(1)
      .max(64)
      .nullish()
      .describe('Test alerts only: the one contact (an id from the page’s contacts) who gets the test SMS.'),
  })
  .meta({ id: 'AlertRequest' });

export type AlertRequest = z.output<typeof alertRequest>;
