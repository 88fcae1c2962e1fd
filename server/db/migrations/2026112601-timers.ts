import { type Kysely, sql } from 'kysely';

/**
 * Durable timers (server/lib/timers.ts): one row per scheduled job, taken at its due time by
 * one process under a lease. The e-mail summaries move onto them: a burst that was waiting for
 * its summary (or whose sender died mid-send) gets its timer, and its own due time and lease
 * columns go.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('timers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('timers_kind_subject_unique', ['kind', 'subject'])
    .execute();
  await db.schema.createIndex('timers_due_idx').on('timers').column('due_at').execute();

  await sql`
    insert into timers (id, kind, subject, due_at, attempts, lease_until, created_at)
    select 'mail-summary:' || id, 'mail-summary', id,
           case when claimed_count > 0 then coalesce(claimed_until, 0) else due_at end, 0, null, day_started_at
    from mail_bursts
    where due_at is not null or claimed_count > 0
  `.execute(db);
  await db.schema.dropIndex('mail_bursts_due_idx').execute();
  await db.schema.dropIndex('mail_bursts_claimed_idx').execute();
  await db.schema.alterTable('mail_bursts').dropColumn('due_at').execute();
  await db.schema.alterTable('mail_bursts').dropColumn('claimed_until').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mail_bursts').addColumn('due_at', 'bigint').execute();
  await db.schema.alterTable('mail_bursts').addColumn('claimed_until', 'bigint').execute();
  await sql`
    update mail_bursts set due_at = (
      select t.due_at from timers t where t.kind = 'mail-summary' and t.subject = mail_bursts.id
    )
  `.execute(db);
  await db.schema.createIndex('mail_bursts_due_idx').on('mail_bursts').column('due_at').execute();
  await db.schema.createIndex('mail_bursts_claimed_idx').on('mail_bursts').column('claimed_until').execute();
  await db.schema.dropTable('timers').ifExists().execute();
}
