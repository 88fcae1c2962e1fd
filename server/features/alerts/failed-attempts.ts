import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/schema.js';
import { isPermanent, isUnanswered, loggable } from '../../providers/calls.js';
import type { ClaimedDelivery } from './deliveries-repository.js';
import { markAttemptFailed } from './deliveries-repository.js';

/**
 * Records an attempt the provider refused or never answered (the delivery `queued` again with
 * the reason), then throws for the job engine, which retries the job after the SMS's backoff or
 * parks it after its last attempt or a permanent refusal (the delivery then `failed`). An attempt
 * without an answer may have gone out: the next one asks the provider first (`unanswered_since`).
 * What it throws names no number: the engine logs it and keeps it on the job.
 */
export async function recordFailure(
  db: Db,
  delivery: ClaimedDelivery,
  error: unknown,
  now: number,
  log?: Pick<FastifyBaseLogger, 'warn'>,
): Promise<never> {
  const reason = error instanceof Error ? error.message : String(error);
  log?.warn({ delivery: delivery.id, attempt: delivery.attempts, reason: loggable(error) }, 'SMS attempt failed');
  const unansweredSince = isUnanswered(error) ? (delivery.unanswered_since ?? delivery.updated_at) : undefined;
  await markAttemptFailed(db, delivery.id, { reason, now, unansweredSince });
  throw Object.assign(new Error(`SMS not sent: ${loggable(error)}`), { permanent: isPermanent(error) });
}
