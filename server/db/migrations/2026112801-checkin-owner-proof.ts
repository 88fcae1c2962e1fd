import { type Kysely, sql } from 'kysely';
import { up as createPushSubscriptions } from './2026112603-push.js';

/**
 * A link can raise the alarm, only the owner can lower it (features/checkins/): each push
 * subscription belongs to the device key that made it (removing the key removes it, at most one
 * per key), and wrong check-in PINs are counted per owner over an hour (`checkin_pin_tries`), not
 * per check-in.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Made before the owner's proof was asked, they may be anyone's: the owner's page subscribes
  // again when it next starts a check-in.
  await sql`delete from push_subscriptions`.execute(db);
  await db.schema
    .alterTable('push_subscriptions')
    .addColumn('device_key_id', 'text', (c) => c.references('device_keys.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('push_subscriptions_device_key_unique')
    .unique()
    .on('push_subscriptions')
    .column('device_key_id')
    .execute();
  await db.schema
    .createTable('checkin_pin_tries')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('window_started_at', 'bigint', (c) => c.notNull())
    .addColumn('wrong_pins', 'integer', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('checkin_pin_tries').ifExists().execute();
  // SQLite cannot drop a column that holds a foreign key: the table is made again as it was.
  await db.schema.dropTable('push_subscriptions').ifExists().execute();
  await createPushSubscriptions(db);
}
