import type { Db } from '../../db/schema.js';
import { DAY } from '../../lib/time.js';

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
