/**
 * Escalation: a real alert nobody has answered by its `escalation_at` phones every contact it
 * reached who has not answered, all at once, and sends them a second SMS. The alert's job
 * (server/jobs/) decides it once across processes and restarts; each call is then a job
 * of its own (placement.ts), placed at least once and rung once. An alert sent with
 * the link alone escalates to a number at most once an hour for its account, however many
 * such alerts are sent: whoever holds the link can raise the alarm, not ring a phone on end.
 */
import type { Transaction } from 'kysely';
import { escalationSms } from '../../../common/escalation-text.js';
import { shownName } from '../../../common/profile-rules.js';
import type { Config } from '../../config.js';
import type { Alert, Database, User } from '../../db/schema.js';
import { enqueueMany, type JobHandler } from '../../jobs/index.js';
import type { Deps } from '../../lib/deps.js';
import { orderedId } from '../../lib/ids.js';
import { HOUR } from '../../lib/time.js';
import { findById } from '../accounts/index.js';
import { alertById, numbersReached, queueWithinBudgets } from '../alerts/index.js';
import { livePageUrl } from '../live/index.js';
import { ownerLanguage } from '../owner/index.js';
import {
  answeredByContact,
  insertCalls,
  lockLinkOnlyCalls,
  settleEscalation,
  unansweredContacts,
} from './repository.js';

/** A number an account's link-only alerts had phoned in this window is not phoned (nor sent the second SMS) again for them. */
export const LINK_ONLY_CALL_WINDOW_MS = HOUR;

/** When a real alert stored at `now` escalates: the owner's own delay, else the server's; null for never. */
export function escalationAt(
  owner: Pick<User, 'escalation_after_seconds'>,
  config: Pick<Config, 'ESCALATION_AFTER_SECONDS'>,
  now: number,
): number | null {
  const seconds = owner.escalation_after_seconds ?? config.ESCALATION_AFTER_SECONDS;
  return seconds > 0 ? now + seconds * 1000 : null;
}

export type EscalationDeps = Pick<
  Deps,
  'db' | 'dialect' | 'clock' | 'config' | 'log' | 'payments' | 'dispatcher' | 'liveHub' | 'jobs'
>;

/**
 * The contacts a link-only alert escalates to: those whose number none of the account's
 * link-only alerts phoned within LINK_ONLY_CALL_WINDOW_MS, decided under the account's lock so
 * that concurrent escalations (in any processes) count each other's calls.
 */
async function notRungForLinkOnly<C extends { phone_number: string }>(
  deps: EscalationDeps,
  trx: Transaction<Database>,
  alert: Alert,
  contacts: C[],
  now: number,
): Promise<C[]> {
  await lockLinkOnlyCalls(trx, deps.dialect, alert.user_id);
  const phones = contacts.map((contact) => contact.phone_number);
  const rung = await numbersReached(trx, {
    via: 'escalation_calls',
    userId: alert.user_id,
    phones,
    since: now - LINK_ONLY_CALL_WINDOW_MS,
    proven: false,
  });
  return contacts.filter((contact) => !rung.has(contact.phone_number));
}

/**
 * In one transaction, only while the escalation still waits: cancelled when a contact answered
 * or the owner said they are safe; else `calling`, one queued call per contact who has not
 * answered (for a link-only alert, whose number its account's link-only alerts did not phone
 * within the hour) with the job that places it, and the second SMS to those numbers within the
 * SMS budgets. False when nothing is to be placed (cancelled, or another run already moved it).
 */
async function startCalling(deps: EscalationDeps, alert: Alert, owner: User): Promise<boolean> {
  const now = deps.clock.now();
  const started = await deps.db.transaction().execute(async (trx) => {
    const current = await alertById(trx, alert.id);
    if (!current || current.escalation_status !== null) return false;
    if (current.resolved_at !== null || (await answeredByContact(trx, alert.id))) {
      await settleEscalation(trx, alert.id, 'cancelled');
      return false;
    }
    if (!(await settleEscalation(trx, alert.id, 'calling'))) return false;
    const unanswered = await unansweredContacts(trx, alert.id);
    const contacts = current.proven === 1 ? unanswered : await notRungForLinkOnly(deps, trx, current, unanswered, now);
    const calls = await insertCalls(
      trx,
      contacts.map((contact) => ({
        id: orderedId(),
        alert_id: alert.id,
        delivery_id: contact.id,
        contact_name: contact.contact_name,
        phone_number: contact.phone_number,
        status: 'queued' as const,
        provider_call_id: null,
        last_error: null,
        placed_at: null,
        created_at: now,
        updated_at: now,
      })),
    );
    await enqueueMany(
      trx,
      calls.map((id) => ({ kind: 'escalation-call' as const, subject: id, dueAt: now, now })),
    );
    const body = escalationSms({
      language: ownerLanguage(owner),
      ownerName: shownName(owner),
      liveUrl: livePageUrl(deps.config.APP_URL, alert.public_id),
    });
    await queueWithinBudgets(deps, trx, { alert, recipients: contacts, body, kind: 'escalation', now });
    return true;
  });
  if (started) {
    deps.dispatcher.kick();
    deps.jobs.kick();
  }
  return started;
}

/**
 * The escalation's job (`escalation`, subject the alert's id): at the alert's `escalation_at`, decides the calls unless answered or
 * resolved; their jobs place them.
 */
export function escalationJob(deps: EscalationDeps): JobHandler {
  return async ({ subject }) => {
    const alert = await alertById(deps.db, subject);
    if (alert?.mode !== 'real' || alert.escalation_at === null || alert.escalation_status !== null) return;
    const owner = await findById(deps.db, alert.user_id);
    if (!owner) return;
    await startCalling(deps, alert, owner);
    deps.liveHub.publish(alert.id);
  };
}
