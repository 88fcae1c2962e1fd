import type { Kysely } from 'kysely';

/**
 * Contacts who agree and answer by SMS (features/sms-replies/): when a contact was last invited
 * and when they confirmed; the numbers that said STOP (to any account: carriers do the same);
 * the short SMS Alerta sends outside alerts (invitations, help, "which alert?"), which also
 * bound how often a number gets them; and a question awaiting a number's next reply.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('contacts').addColumn('invited_at', 'bigint').execute();
  await db.schema.alterTable('contacts').addColumn('confirmed_at', 'bigint').execute();
  await db.schema
    .createTable('sms_opt_outs')
    .addColumn('phone_number', 'text', (c) => c.primaryKey())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('sms_notices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sms_notices_number_idx')
    .on('sms_notices')
    .columns(['phone_number', 'kind', 'created_at'])
    .execute();
  await db.schema
    .createTable('sms_reply_questions')
    .addColumn('phone_number', 'text', (c) => c.primaryKey())
    .addColumn('alert_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sms_reply_questions').ifExists().execute();
  await db.schema.dropTable('sms_notices').ifExists().execute();
  await db.schema.dropTable('sms_opt_outs').ifExists().execute();
  await db.schema.alterTable('contacts').dropColumn('confirmed_at').execute();
  await db.schema.alterTable('contacts').dropColumn('invited_at').execute();
}
