import type { Kysely } from 'kysely';

/**
 * The owner's proof and SMS parts: device keys the owner's session issues to the emergency
 * page (stored hashed), whether an alert carried the owner's proof (its SMS spend a budget of
 * their own), why a delivery was withheld, and how many SMS parts a delivery and its usage
 * record take (budgets and the meter count parts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('device_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('device_keys_user_idx').on('device_keys').columns(['user_id', 'created_at']).execute();
  await db.schema
    .alterTable('alerts')
    .addColumn('proven', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('deliveries')
    .addColumn('parts', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('deliveries').addColumn('withheld_reason', 'text').execute();
  await db.schema
    .alterTable('usage_records')
    .addColumn('parts', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_records').dropColumn('parts').execute();
  await db.schema.alterTable('deliveries').dropColumn('withheld_reason').execute();
  await db.schema.alterTable('deliveries').dropColumn('parts').execute();
  await db.schema.alterTable('alerts').dropColumn('proven').execute();
  await db.schema.dropTable('device_keys').ifExists().execute();
}
