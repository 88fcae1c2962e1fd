import { type Kysely, sql } from 'kysely';

/**
 * Check-ins (features/checkins/): a timer the owner starts and the server holds; when it is
 * not ended in time, an alert goes out by itself. Alerts say why they went out (`reason`:
 * the button, a missed check-in, the duress PIN). The owner's check-in PIN and duress PIN
 * are stored hashed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('checkins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('grace_seconds', 'integer', (c) => c.notNull())
    .addColumn('latitude', 'double precision')
    .addColumn('longitude', 'double precision')
    .addColumn('accuracy', 'double precision')
    .addColumn('captured_at', 'bigint')
    .addColumn('wrong_pins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('duress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('alert_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .addUniqueConstraint('checkins_user_key_unique', ['user_id', 'idempotency_key'])
    .execute();
  // One check-in running (or overdue) per owner: a second start loses this index.
  await db.schema
    .createIndex('checkins_one_running')
    .on('checkins')
    .column('user_id')
    .unique()
    .where(sql.ref('status'), 'in', sql`('running', 'overdue')`)
    .execute();
  await db.schema.createIndex('checkins_user_idx').on('checkins').columns(['user_id', 'created_at']).execute();
  await db.schema
    .alterTable('alerts')
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo('button'))
    .execute();
  await db.schema.alterTable('users').addColumn('checkin_pin_hash', 'text').execute();
  await db.schema.alterTable('users').addColumn('duress_pin_hash', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('duress_pin_hash').execute();
  await db.schema.alterTable('users').dropColumn('checkin_pin_hash').execute();
  await db.schema.alterTable('alerts').dropColumn('reason').execute();
  await db.schema.dropTable('checkins').ifExists().execute();
}
