import type { Kysely } from 'kysely';

/**
 * Responders a live page can trust: each alert SMS carries its own contact key (stored
 * hashed on the delivery), an "on my way" through it names the delivery it came from (one
 * per delivery), and the others are counted per client address (hashed with the alert).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('deliveries').addColumn('contact_key_hash', 'text').execute();
  await db.schema.alterTable('alert_responders').addColumn('delivery_id', 'text').execute();
  await db.schema.alterTable('alert_responders').addColumn('client_hash', 'text').execute();
  // One answer per contact: a second press updates it. NULLs (strangers) are distinct.
  await db.schema
    .createIndex('alert_responders_delivery_unique')
    .on('alert_responders')
    .columns(['alert_id', 'delivery_id'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('alert_responders_delivery_unique').ifExists().execute();
  await db.schema.alterTable('alert_responders').dropColumn('client_hash').execute();
  await db.schema.alterTable('alert_responders').dropColumn('delivery_id').execute();
  await db.schema.alterTable('deliveries').dropColumn('contact_key_hash').execute();
}
