import { type Kysely, sql } from 'kysely';

/** The `next_attempt_at` the version before this one writes on every delivery the job engine sends. */
const NOT_FOR_OLDER_CLAIMS = Number.MAX_SAFE_INTEGER;

/**
 * An SMS's due time and lease are its job's (2026112820-sms-jobs): the deliveries' own queue
 * columns, `next_attempt_at` and `claimed_until`, and their index go, with the recurring job that
 * gave their jobs to the SMS a process older than 2026112820-sms-jobs queued during a rolling
 * deploy (`sms-of-older-processes`). An upgrade from before that migration goes through its
 * version first (docs/OPERATIONS.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from timers where kind = 'sms-of-older-processes'`.execute(db);
  await db.schema.dropIndex('deliveries_due_idx').execute();
  await db.schema.alterTable('deliveries').dropColumn('next_attempt_at').execute();
  await db.schema.alterTable('deliveries').dropColumn('claimed_until').execute();
}

/** Back to the columns as the version before writes them: every delivery out of the older claim's reach. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('deliveries')
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(NOT_FOR_OLDER_CLAIMS))
    .execute();
  await db.schema.alterTable('deliveries').addColumn('claimed_until', 'bigint').execute();
  await db.schema.createIndex('deliveries_due_idx').on('deliveries').columns(['status', 'next_attempt_at']).execute();
}
