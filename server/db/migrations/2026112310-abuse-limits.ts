import type { Kysely } from 'kysely';

/**
 * Abuse limits: the SMS budgets count deliveries per destination number over time, and a
 * replayed Idempotency-Key is compared with the body it first came with.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('deliveries_phone_created_idx')
    .on('deliveries')
    .columns(['phone_number', 'created_at'])
    .execute();
  await db.schema.alterTable('alerts').addColumn('request_hash', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alerts').dropColumn('request_hash').execute();
  await db.schema.dropIndex('deliveries_phone_created_idx').ifExists().execute();
}
