import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { type ClaimedDelivery, markAttemptFailed } from './deliveries.js';
import { isUnanswered, loggable } from './unanswered.js';

/** A provider error that retrying cannot fix (e.g. an invalid number). */
export const isPermanent = (error: unknown) => (error as { permanent?: unknown } | null)?.permanent === true;

/**
 * The delay before retry number `attempt` (1-based count of failed attempts):
 * exponential with ±20 % jitter, so 7 attempts span at least 12 minutes.
 */
export function backoffMs(attempt: number, base: number, max: number, random: () => number): number {
  const plain = Math.min(base * 2 ** (attempt - 1), max);
  return Math.round(plain * (0.8 + 0.4 * random()));
}

/**
 * Records an attempt the provider refused or never answered: retried after `backoffMs`, or
 * failed for good after `maxAttempts` or a permanent refusal. An attempt without an answer may
 * have gone out: the next one asks the provider first (`unanswered_since`).
 */
export async function recordFailure(
  db: Kysely<Database>,
  delivery: ClaimedDelivery,
  error: unknown,
  policy: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number; random: () => number; now: number },
  log?: Pick<FastifyBaseLogger, 'warn'>,
): Promise<void> {
  const { now } = policy;
  const reason = error instanceof Error ? error.message : String(error);
  const final = delivery.attempts >= policy.maxAttempts || isPermanent(error);
  const retryAt = final
    ? null
    : now + backoffMs(delivery.attempts, policy.baseDelayMs, policy.maxDelayMs, policy.random);
  log?.warn(
    { delivery: delivery.id, attempt: delivery.attempts, final, reason: loggable(error) },
    'SMS attempt failed',
  );
  const unansweredSince = isUnanswered(error) ? (delivery.unanswered_since ?? delivery.updated_at) : undefined;
  await markAttemptFailed(db, delivery.id, { reason, retryAt, now, unansweredSince });
}
