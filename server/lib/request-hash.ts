import { createHash } from 'node:crypto';
import type { AlertRequest } from '../../common/api/alerts.js';

/** A request's parts in a fixed order, hashed: what a replayed Idempotency-Key must come with again. */
export const digestOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url');

/**
 * The request in a fixed key order, hashed: a replayed key must come with the same request.
 * Version 2 (`v2:` prefix) includes the chosen test contact; stored hashes without a prefix
 * are version 1 (mode, location, location error) and are still compared as such.
 */
export const hashOf = (body: AlertRequest) =>
  `v2:${digestOf([body.mode, body.location ?? null, body.location_error ?? null, body.contact_id ?? null])}`;
const hashV1 = (body: AlertRequest) => digestOf([body.mode, body.location ?? null, body.location_error ?? null]);

/** Whether a stored request hash (either version) is of this request. */
export const sameRequest = (stored: string, body: AlertRequest) =>
  stored === (stored.startsWith('v2:') ? hashOf(body) : hashV1(body));
