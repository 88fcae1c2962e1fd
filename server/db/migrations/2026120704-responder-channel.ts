import type { Kysely } from 'kysely';

/**
 * How a contact said they were on the way (features/live/): `link` (their own link from the
 * SMS), `sms` (a reply to it) or `call` (a key pressed during the escalation call), so the
 * owner and the live page name it. Null for anyone else with the link; rows written before by a
 * contact read as `link`, the only channel there was to tell apart.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alert_responders').addColumn('channel', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alert_responders').dropColumn('channel').execute();
}
