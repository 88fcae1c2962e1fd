import type { Kysely } from 'kysely';

/**
 * The daily check-in (features/daily/): one schedule per owner, an "I'm OK" due at a time of
 * their day every few days; missed past its grace, a real alert goes out by itself. The
 * e-mail reminder's one-click link is kept hashed, single use.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('daily_checkins')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('time', 'text', (c) => c.notNull())
    .addColumn('every_days', 'integer', (c) => c.notNull())
    .addColumn('grace_minutes', 'integer', (c) => c.notNull())
    .addColumn('paused_until', 'text')
    .addColumn('anchor_at', 'bigint', (c) => c.notNull())
    .addColumn('last_ok_at', 'bigint')
    .addColumn('next_due_at', 'bigint')
    .addColumn('reminded_due_at', 'bigint')
    .addColumn('missed_due_at', 'bigint')
    .addColumn('alert_id', 'text')
    .addColumn('link_hash', 'text')
    .addColumn('link_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('daily_checkins_link_idx').on('daily_checkins').column('link_hash').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('daily_checkins').ifExists().execute();
}
