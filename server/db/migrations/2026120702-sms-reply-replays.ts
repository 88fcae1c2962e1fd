import type { Kysely } from 'kysely';

/**
 * Inbound SMS taken once: the MessageSid of each one Twilio posted, so a replay of the same
 * signed request is answered but not acted on again (forgotten after a day, `created_at`
 * indexed for that); and the language "which alert?" was asked in, which its answer's notice
 * speaks (questions asked before this column existed read as Portuguese, the product's first).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sms_inbound_seen')
    .addColumn('message_sid', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sms_inbound_seen_created_idx').on('sms_inbound_seen').column('created_at').execute();
  await db.schema
    .alterTable('sms_reply_questions')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo('pt'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sms_reply_questions').dropColumn('language').execute();
  await db.schema.dropTable('sms_inbound_seen').ifExists().execute();
}
