import type { Kysely } from 'kysely';

/**
 * Escalation by phone: each real alert keeps when it escalates and how far it got, each owner
 * their own delay (null: the server's default; 0: never), and each call placed to a contact
 * its row, one per alert and contact (the unique pair is what places a call at most once).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('escalation_after_seconds', 'integer').execute();
  await db.schema.alterTable('alerts').addColumn('escalation_at', 'bigint').execute();
  await db.schema.alterTable('alerts').addColumn('escalation_status', 'text').execute();
  await db.schema
    .createTable('escalation_calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('alert_id', 'text', (c) => c.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('contact_name', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider_call_id', 'text')
    .addColumn('last_error', 'text')
    .addColumn('placed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('escalation_calls_alert_delivery_unique', ['alert_id', 'delivery_id'])
    .execute();
  await db.schema
    .createIndex('escalation_calls_provider_idx')
    .on('escalation_calls')
    .column('provider_call_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('escalation_calls').ifExists().execute();
  await db.schema.alterTable('alerts').dropColumn('escalation_status').execute();
  await db.schema.alterTable('alerts').dropColumn('escalation_at').execute();
  await db.schema.alterTable('users').dropColumn('escalation_after_seconds').execute();
}
