import { type Selectable, sql } from 'kysely';
import { LIVE_PAGE_TTL_MS } from '../../../common/constants.js';
import type { Dialect } from '../../db/index.js';
import type { Alert, Db, User } from '../../db/schema.js';
import type { SmsNoticeKind, SmsNoticesTable } from '../../db/schema-replies.js';
import { DAY } from '../../lib/time.js';

// The statements of SMS replies: inbound replays, opt-outs and the numbers' lock, notices,
// invitations, the "which alert?" questions, and the alerts a contact's reply may answer.

/** How long an inbound SMS's MessageSid is kept: Twilio's retries of one request come within it. */
export const REPLAY_WINDOW_MS = DAY;

/**
 * Takes an inbound SMS by its MessageSid: true the first time, false for a replay of the same
 * signed request (already taken, or being taken by another request right now).
 */
export async function takeInbound(db: Db, messageSid: string, now: number): Promise<boolean> {
  const inserted = await db
    .insertInto('sms_inbound_seen')
    .values({ message_sid: messageSid, created_at: now })
    .onConflict((oc) => oc.column('message_sid').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Gives back an inbound SMS whose handling failed, so Twilio's retry of it is acted on. */
export async function releaseInbound(db: Db, messageSid: string): Promise<void> {
  await db.deleteFrom('sms_inbound_seen').where('message_sid', '=', messageSid).execute();
}

/** Forgets the MessageSids older than `REPLAY_WINDOW_MS`: the recurring `sms-inbound-prune` job. */
export async function forgetOldInbound(db: Db, now: number): Promise<void> {
  await db
    .deleteFrom('sms_inbound_seen')
    .where('created_at', '<', now - REPLAY_WINDOW_MS)
    .execute();
}

/** Records a number's STOP; true when it was not opted out already. */
export async function insertOptOut(db: Db, phone: string, source: 'reply' | 'provider', now: number): Promise<boolean> {
  const inserted = await db
    .insertInto('sms_opt_outs')
    .values({ phone_number: phone, source, created_at: now })
    .onConflict((oc) => oc.column('phone_number').doNothing())
    .returning('phone_number')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** START: the number may receive Alerta's SMS again. */
export async function optIn(db: Db, phone: string): Promise<void> {
  await db.deleteFrom('sms_opt_outs').where('phone_number', '=', phone).execute();
}

/** Which of `phones` opted out. */
export async function optedOutAmong(db: Db, phones: string[]): Promise<Set<string>> {
  const unique = [...new Set(phones)];
  if (unique.length === 0) return new Set();
  const rows = await db.selectFrom('sms_opt_outs').select('phone_number').where('phone_number', 'in', unique).execute();
  return new Set(rows.map((row) => row.phone_number));
}

/**
 * Holds the lock of each of `phones` until the transaction ends, so two writers counting what
 * went to one number (the SMS budgets, the notices' bounds) count one after the other:
 * PostgreSQL's transaction lock per number, taken in the order given (sorted by callers that take
 * several, so two never hold one each and wait for the other's); SQLite's single writer already
 * serialises them.
 */
export async function lockNumbers(db: Db, dialect: Dialect, phones: string[]): Promise<void> {
  if (dialect !== 'postgres' || phones.length === 0) return;
  await sql`select pg_advisory_xact_lock(hashtext('sms:' || phone)) from unnest(${phones}::text[]) as phone`.execute(
    db,
  );
}

/** `lockNumbers` of one number. */
export const lockNumber = (db: Db, dialect: Dialect, phone: string) => lockNumbers(db, dialect, [phone]);

/** The contacts, of every owner, whose number is `phone`. */
export async function contactIdsOfNumber(db: Db, phone: string): Promise<string[]> {
  const rows = await db.selectFrom('contacts').select('id').where('phone_number', '=', phone).execute();
  return rows.map((row) => row.id);
}

/** The owner's contacts whose number said STOP since `since` and stands by it, by name. */
export async function contactsStoppedSince(db: Db, userId: string, since: number): Promise<string[]> {
  const rows = await db
    .selectFrom('contacts')
    .innerJoin('sms_opt_outs', 'sms_opt_outs.phone_number', 'contacts.phone_number')
    .select('contacts.name')
    .where('contacts.user_id', '=', userId)
    .where('sms_opt_outs.created_at', '>=', since)
    .orderBy('contacts.name')
    .execute();
  return rows.map((row) => row.name);
}

/** A contact whose number stands opted out, with when it said STOP; undefined otherwise. */
export function stoppedContact(db: Db, contactId: string) {
  return db
    .selectFrom('contacts')
    .innerJoin('sms_opt_outs', 'sms_opt_outs.phone_number', 'contacts.phone_number')
    .select(['contacts.user_id', 'contacts.name', 'contacts.phone_number', 'sms_opt_outs.created_at'])
    .where('contacts.id', '=', contactId)
    .executeTakeFirst();
}

/** Stores a queued notice. */
export async function insertNotice(
  db: Db,
  notice: { id: string; userId?: string | undefined; phone: string; kind: SmsNoticeKind; body: string; now: number },
): Promise<void> {
  const { now } = notice;
  await db
    .insertInto('sms_notices')
    .values({
      id: notice.id,
      user_id: notice.userId ?? null,
      phone_number: notice.phone,
      kind: notice.kind,
      body: notice.body,
      status: 'queued',
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** How many notices of `kind` (with `body`, when given) went (or are going) to `phone` since `since`. */
export async function noticesSince(
  db: Db,
  phone: string,
  kind: SmsNoticeKind,
  since: number,
  body?: string,
): Promise<number> {
  let query = db
    .selectFrom('sms_notices')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('phone_number', '=', phone)
    .where('kind', '=', kind)
    .where('created_at', '>', since);
  if (body !== undefined) query = query.where('body', '=', body);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A notice still queued, by its id. */
export function queuedNotice(db: Db, id: string): Promise<Selectable<SmsNoticesTable> | undefined> {
  return db
    .selectFrom('sms_notices')
    .selectAll()
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst();
}

/** A queued notice's outcome; a notice no longer queued keeps its own. */
export async function settleNotice(
  db: Db,
  id: string,
  status: 'sent' | 'failed' | 'opted_out',
  now: number,
  error?: string,
): Promise<void> {
  await db
    .updateTable('sms_notices')
    .set({ status, updated_at: now, last_error: error?.slice(0, 500) ?? null })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .execute();
}

/**
 * Marks a contact invited unless it was within `reinviteAfterMs`: a conditional update, so of
 * two requests at once only the one whose update took the row goes on. True when it did.
 */
export async function claimInvitation(db: Db, contactId: string, now: number, reinviteAfterMs: number) {
  const claimed = await db
    .updateTable('contacts')
    .set({ invited_at: now })
    .where('id', '=', contactId)
    .where((eb) => eb.or([eb('invited_at', 'is', null), eb('invited_at', '<=', now - reinviteAfterMs)]))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/**
 * A YES confirms the invitation the number got last (the one it is answering): that owner's
 * contact. An earlier inviter is confirmed by a YES to its own invitation, which a re-invitation
 * from Setup can ask for. False when the number has no invitation waiting.
 */
export async function confirmNumber(db: Db, phone: string, now: number): Promise<boolean> {
  const latest = await db
    .selectFrom('contacts')
    .select('id')
    .where('phone_number', '=', phone)
    .where('invited_at', 'is not', null)
    .where('confirmed_at', 'is', null)
    .orderBy('invited_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!latest) return false;
  await db.updateTable('contacts').set({ confirmed_at: now }).where('id', '=', latest.id).execute();
  return true;
}

/** The "which alert?" row `phone` was asked since `since`, if any. */
export function questionSince(db: Db, phone: string, since: number) {
  return db
    .selectFrom('sms_reply_questions')
    .selectAll()
    .where('phone_number', '=', phone)
    .where('created_at', '>', since)
    .executeTakeFirst();
}

/** The question is answered: a later digit is no choice. */
export async function forgetQuestion(db: Db, phone: string): Promise<void> {
  await db.deleteFrom('sms_reply_questions').where('phone_number', '=', phone).execute();
}

/** Stores the question asked of `phone`: the alerts offered, in order, and its language. */
export async function insertQuestion(
  db: Db,
  question: { phone: string; alertIds: string; language: 'pt' | 'en'; now: number },
): Promise<void> {
  await db
    .insertInto('sms_reply_questions')
    .values({
      phone_number: question.phone,
      alert_ids: question.alertIds,
      language: question.language,
      created_at: question.now,
    })
    .execute();
}

/** An open real alert whose own SMS, with its contact link, went to a number: with the delivery and owner. */
export type AlertSentTo = Alert & {
  delivery_id: string;
  contact_name: string;
} & Pick<User, 'display_name' | 'username' | 'language'>;

/**
 * The unresolved real alerts of the live page's life whose own SMS, with its contact link, went
 * to `phone`, newest first; with `only`, that alert alone.
 */
export async function alertsSentTo(db: Db, phone: string, now: number, only?: string): Promise<AlertSentTo[]> {
  let query = db
    .selectFrom('deliveries')
    .innerJoin('alerts', 'alerts.id', 'deliveries.alert_id')
    .innerJoin('users', 'users.id', 'alerts.user_id')
    .selectAll('alerts')
    .select([
      'deliveries.id as delivery_id',
      'deliveries.contact_name',
      'users.display_name',
      'users.username',
      'users.language',
    ])
    .where('deliveries.phone_number', '=', phone)
    .where('deliveries.kind', '=', 'alert')
    .where('deliveries.contact_key_hash', 'is not', null)
    .where('alerts.mode', '=', 'real')
    .where('alerts.resolved_at', 'is', null)
    .where('alerts.created_at', '>', now - LIVE_PAGE_TTL_MS)
    .orderBy('alerts.created_at', 'desc')
    .orderBy('alerts.id', 'desc');
  if (only !== undefined) query = query.where('alerts.id', '=', only);
  return query.execute();
}
