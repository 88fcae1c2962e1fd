import type { Kysely } from 'kysely';

/**
 * After the alert: positions the emergency page sends while it stays open, contacts who
 * answer "on my way", when the alert last changed (for the live page's expiry), and which
 * deliveries are the all-clear rather than the alert itself.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alert_locations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('alert_id', 'text', (c) => c.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('latitude', 'double precision', (c) => c.notNull())
    .addColumn('longitude', 'double precision', (c) => c.notNull())
    .addColumn('accuracy', 'double precision', (c) => c.notNull())
    .addColumn('captured_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    // A replayed offline update carries the same fix time: stored once.
    .addUniqueConstraint('alert_locations_fix_unique', ['alert_id', 'captured_at'])
    .execute();
  await db.schema.createIndex('alert_locations_created_idx').on('alert_locations').column('created_at').execute();

  await db.schema
    .createTable('alert_responders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('alert_id', 'text', (c) => c.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('alert_responders_alert_idx').on('alert_responders').column('alert_id').execute();

  await db.schema.alterTable('alerts').addColumn('last_update_at', 'bigint').execute();
  await db.schema
    .alterTable('deliveries')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('alert'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('deliveries').dropColumn('kind').execute();
  await db.schema.alterTable('alerts').dropColumn('last_update_at').execute();
  await db.schema.dropTable('alert_responders').ifExists().execute();
  await db.schema.dropTable('alert_locations').ifExists().execute();
}
