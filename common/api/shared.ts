/** Pieces every part of the API contract uses. */
import { z } from 'zod';
import { errorBody } from './errors.js';

/** The error answers a route can give, each the shared error body. */
export function errorResponses<S extends number>(...statuses: S[]): Record<S, typeof errorBody> {
  return Object.fromEntries(statuses.map((status) => [status, errorBody])) as Record<S, typeof errorBody>;
}

/** A 204 answer. */
export const noContent = z.undefined().describe('No content.');

/** A route with an `{id}` in its path (any text: an unknown or malformed id is a 404). */
export const idParams = z.object({ id: z.string() });

/** `{"detail": text}`: the generic answers that tell nothing about an account. */
export const detailAnswer = z.object({ detail: z.string() }).meta({ id: 'Detail' });
