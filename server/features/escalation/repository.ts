/** The escalation calls' rows, and the alert columns that say how far an escalation got. */
import { type Insertable, sql, type Transaction } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { CallStatus, Database, Db, EscalationCall } from '../../db/schema.js';
import type { EscalationCallsTable } from '../../db/schema-escalation.js';

/** The calls of these alerts, in the order they were made. */
export function callsOf(db: Db, alertIds: string[]): Promise<EscalationCall[]> {
  if (alertIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('escalation_calls')
    .selectAll()
    .where('alert_id', 'in', alertIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function callById(db: Db, id: string): Promise<EscalationCall | undefined> {
  return db.selectFrom('escalation_calls').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Marks a waiting escalation `to` (calling or cancelled), only while it still waits: whichever
 * of the calls and an answer (or the all-clear) commits first wins. True when this one did.
 */
export async function settleEscalation(db: Db, alertId: string, to: 'calling' | 'cancelled'): Promise<boolean> {
  const moved = await db
    .updateTable('alerts')
    .set({ escalation_status: to })
    .where('id', '=', alertId)
    .where('escalation_at', 'is not', null)
    .where('escalation_status', 'is', null)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** Call states that never change again, but for a key pressed on an answered call. */
const ENDED: readonly CallStatus[] = ['acknowledged', 'no_answer', 'busy', 'failed'];

/**
 * Moves a call to `status`: never back from an ended state, and never from `acknowledged`; an
 * answered call that ends stays `answered`. True when the row changed.
 */
export async function moveCall(
  db: Db,
  call: { id: string; status: CallStatus; providerCallId?: string; error?: string; now: number },
): Promise<boolean> {
  let query = db
    .updateTable('escalation_calls')
    .set({
      status: call.status,
      updated_at: call.now,
      ...(call.providerCallId ? { provider_call_id: call.providerCallId } : {}),
      ...(call.error ? { last_error: call.error } : {}),
    })
    .where('id', '=', call.id)
    .where('status', 'not in', ENDED)
    .where('status', '!=', call.status);
  // A late "completed" or "no-answer" after the contact picked up changes nothing.
  if (call.status !== 'acknowledged' && call.status !== 'answered') query = query.where('status', '!=', 'answered');
  const moved = await query.executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** True when a contact (through their own link, or by pressing 1) said "I'm on my way". */
export async function answeredByContact(db: Db, alertId: string): Promise<boolean> {
  const row = await db
    .selectFrom('alert_responders')
    .select('id')
    .where('alert_id', '=', alertId)
    .where('delivery_id', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The contacts the alert reached who have not answered: its own SMS the budgets let through
 * (a number held back by them gets no call either), one per delivery, in the order queued.
 */
export function unansweredContacts(db: Db, alertId: string) {
  return db
    .selectFrom('deliveries as d')
    .leftJoin('alert_responders as r', (join) => join.onRef('r.delivery_id', '=', 'd.id'))
    .select(['d.id', 'd.contact_name', 'd.phone_number'])
    .where('d.alert_id', '=', alertId)
    .where('d.kind', '=', 'alert')
    .where('d.status', '!=', 'withheld')
    .where('r.id', 'is', null)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}

/**
 * Holds, until the transaction ends, the right to phone on behalf of `userId`'s link-only
 * alerts: two such escalations, in any processes, decide one after the other which numbers
 * were already rung. PostgreSQL takes a transaction lock per account; SQLite's single writer
 * already serialises them (the escalation has written its status before it asks).
 */
export async function lockLinkOnlyCalls(trx: Transaction<Database>, dialect: Dialect, userId: string): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`calls:${userId}`}))`.execute(trx);
}

/**
 * Adds the queued calls; a call already there for the same contact stays as it is. Resolves
 * with the ids of the calls added (each gets its placement job).
 */
export async function insertCalls(db: Db, rows: Insertable<EscalationCallsTable>[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const added = await db
    .insertInto('escalation_calls')
    .values(rows)
    .onConflict((oc) => oc.columns(['alert_id', 'delivery_id']).doNothing())
    .returning('id')
    .execute();
  return added.map((row) => row.id);
}

/**
 * Notes that an attempt to place the call begins. The first attempt's time is kept in
 * `placed_at`: from then on the provider may hold the call, and a later attempt asks it first.
 */
export async function beginAttempt(db: Db, callId: string, now: number): Promise<void> {
  await db
    .updateTable('escalation_calls')
    .set({ placed_at: now, updated_at: now })
    .where('id', '=', callId)
    .where('placed_at', 'is', null)
    .execute();
}

/** Keeps why an attempt failed on a call still waiting to be placed (it is tried again). */
export async function noteAttemptFailed(db: Db, callId: string, error: string, now: number): Promise<void> {
  await db
    .updateTable('escalation_calls')
    .set({ last_error: error, updated_at: now })
    .where('id', '=', callId)
    .where('status', '=', 'queued')
    .execute();
}

/** Which of the provider's call ids are already another call's of ours (another alert's, to the same number). */
export async function providerIdsOfOtherCalls(db: Db, callId: string, providerCallIds: string[]): Promise<Set<string>> {
  if (providerCallIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('escalation_calls')
    .select('provider_call_id')
    .where('provider_call_id', 'in', providerCallIds)
    .where('id', '!=', callId)
    .execute();
  return new Set(rows.map((row) => row.provider_call_id as string));
}
