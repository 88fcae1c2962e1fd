import type { Kysely } from 'kysely';

/**
 * E-mails that strangers can set off (the owner's alert receipts, "someone tried to register
 * with your address") go out one per burst: one row per (kind, address) keeps when the last
 * one went, what is still to be summarised and when that summary is due, and the day's count
 * (features/accounts/mail-bursts.ts). The sweep claims due summaries through `due_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_bursts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('last_mail_at', 'bigint')
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('pending_since', 'bigint')
    .addColumn('due_at', 'bigint')
    .addColumn('claimed_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claimed_since', 'bigint')
    .addColumn('claimed_until', 'bigint')
    .addColumn('day_started_at', 'bigint', (c) => c.notNull())
    .addColumn('day_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('mail_bursts_kind_address_unique', ['kind', 'address'])
    .execute();
  await db.schema.createIndex('mail_bursts_due_idx').on('mail_bursts').column('due_at').execute();
  await db.schema.createIndex('mail_bursts_claimed_idx').on('mail_bursts').column('claimed_until').execute();
  await db.schema.createIndex('mail_bursts_user_idx').on('mail_bursts').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mail_bursts').ifExists().execute();
}
