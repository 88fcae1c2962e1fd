/**
 * Placing one escalation call: a job of the job engine (server/jobs/, kind `escalation-call`) per call, written
 * in the transaction that decided the call, so it is placed at least once whatever happens to
 * the process that decided it; retried with backoff after a failure, and taken over by another
 * process within a lease when this one dies. Rung once: a call whose earlier attempt may have
 * reached the provider (a failure without a clear answer, a process killed mid-request) is
 * looked up at the provider before it is placed again.
 */
import { CALL_VOICE_LANGUAGE, callScript } from '../../../common/escalation-text.js';
import { shownName } from '../../../common/profile-rules.js';
import type { Alert, EscalationCall, User } from '../../db/schema.js';
import type { JobHandler } from '../../jobs/index.js';
import type { Deps } from '../../lib/deps.js';
import { CALL_LOOKUP_TIMEOUT_MS, CALL_MAX_ATTEMPTS, CALL_PLACE_TIMEOUT_MS } from '../../lib/reliability.js';
import { heldAfterAttempt, isPermanent, loggable, withTimeout } from '../../providers/calls.js';
import { findById } from '../accounts/index.js';
import { alertById } from '../alerts/index.js';
import { recordSmsUsage } from '../billing/index.js';
import { ownerLanguage } from '../owner/index.js';
import {
  answeredByContact,
  beginAttempt,
  callById,
  moveCall,
  noteAttemptFailed,
  providerIdsOfOtherCalls,
} from './repository.js';

export type PlacementDeps = Pick<Deps, 'db' | 'clock' | 'log' | 'voice' | 'payments' | 'liveHub'>;

/**
 * The provider's id of this call when an earlier attempt got through after all: a call the
 * provider holds to the number since the first attempt began that is no other call's of ours.
 * Undefined when it should be placed; a provider that cannot tell leaves it to be placed, as
 * the SMS are (a contact rung twice is better than one never rung).
 */
async function heldByProvider(deps: PlacementDeps, call: EscalationCall, since: number): Promise<string | undefined> {
  const mine = await heldAfterAttempt(
    async () => {
      const held = await deps.voice.lookup({ to: call.phone_number, since });
      const ids = held.map((found) => found.providerCallId);
      const others = await providerIdsOfOtherCalls(deps.db, call.id, ids);
      return ids.find((id) => !others.has(id));
    },
    CALL_LOOKUP_TIMEOUT_MS,
    (reason) => deps.log.warn({ call: call.id, reason }, 'escalation call lookup failed: placing it again'),
  );
  if (mine) {
    deps.log.warn({ call: call.id }, 'escalation call held by the provider after a failed attempt: not placed again');
  }
  return mine;
}

/** The call is with the provider: ringing, metered like an SMS (one unit, once per call). */
async function recordRinging(
  deps: PlacementDeps,
  call: EscalationCall,
  alert: Alert,
  providerCallId: string,
): Promise<void> {
  const now = deps.clock.now();
  await moveCall(deps.db, { id: call.id, status: 'ringing', providerCallId, now });
  await recordSmsUsage(
    deps.db,
    { userId: alert.user_id, deliveryId: call.id, alertId: alert.id, parts: 1, now },
    deps.payments,
  );
  deps.liveHub.publish(alert.id);
}

/** What the call says, in the owner's language and voice. */
function composeSpeech(alert: Alert, owner: User) {
  const language = ownerLanguage(owner);
  return {
    say: callScript({
      language,
      ownerName: shownName(owner),
      timeZone: owner.time_zone,
      sentAt: Number(alert.created_at),
    }),
    language: CALL_VOICE_LANGUAGE[language],
  };
}

/** A failed attempt: kept on the call, which is marked failed when no attempt is left (or the number is invalid). */
async function attemptFailed(deps: PlacementDeps, call: EscalationCall, error: unknown, last: boolean): Promise<void> {
  const reason = loggable(error);
  const now = deps.clock.now();
  deps.log.warn({ call: call.id, reason }, last ? 'escalation call failed' : 'escalation call failed: retried');
  if (last) await moveCall(deps.db, { id: call.id, status: 'failed', error: reason, now });
  else await noteAttemptFailed(deps.db, call.id, reason, now);
  deps.liveHub.publish(call.alert_id);
}

/**
 * The placement job (registered with CALL_MAX_ATTEMPTS). A call no longer waiting (placed, or
 * moved by the provider's callbacks) is left alone; one whose alert was resolved or answered by
 * a contact meanwhile is not placed (nobody needs phoning). A failure is kept on the call and
 * thrown, so the job is retried; an invalid number, or the last attempt, marks the call failed.
 * A provider that does not answer within `placeTimeoutMs` (CALL_PLACE_TIMEOUT_MS) is a failed
 * attempt, the call looked up before the next. A run that no longer holds its job right before
 * the provider call (another process took it over) places nothing.
 */
export function placementJob(deps: PlacementDeps, options: { placeTimeoutMs?: number } = {}): JobHandler {
  return async ({ subject, attempt, holds }) => {
    const call = await callById(deps.db, subject);
    if (call?.status !== 'queued') return;
    const alert = await alertById(deps.db, call.alert_id);
    const owner = alert ? await findById(deps.db, alert.user_id) : undefined;
    if (!alert || !owner) return;
    const now = deps.clock.now();
    if (alert.resolved_at !== null || (await answeredByContact(deps.db, alert.id))) {
      await moveCall(deps.db, { id: call.id, status: 'failed', error: 'not placed: answered or resolved first', now });
      deps.liveHub.publish(alert.id);
      return;
    }
    const held = call.placed_at === null ? undefined : await heldByProvider(deps, call, Number(call.placed_at));
    if (held) return recordRinging(deps, call, alert, held);
    await beginAttempt(deps.db, call.id, now);
    // A run stalled past its lease (the lookup above, a pause) may have lost the job to another run, which places it.
    if (!(await holds())) return;
    let providerCallId: string;
    try {
      const placing = deps.voice.place({ to: call.phone_number, reference: call.id, ...composeSpeech(alert, owner) });
      ({ providerCallId } = await withTimeout(placing, options.placeTimeoutMs ?? CALL_PLACE_TIMEOUT_MS));
    } catch (error) {
      const permanent = isPermanent(error);
      await attemptFailed(deps, call, error, permanent || attempt >= CALL_MAX_ATTEMPTS);
      // An invalid number ends here; anything else is the job engine's to retry (or park, at the last).
      if (permanent) return;
      throw error;
    }
    // A failure to record it is retried too: the retry finds the call at the provider.
    await recordRinging(deps, call, alert, providerCallId);
  };
}
