import type { Kysely } from 'kysely';

/**
 * The job engine (server/lib/timers.ts): a claim's lease carries a token of its own, so only the
 * run that holds it renews it or removes the row; a job out of attempts is parked as failed with
 * its last error, kept where operators see it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('timers').addColumn('lease_token', 'text').execute();
  await db.schema.alterTable('timers').addColumn('failed_at', 'bigint').execute();
  await db.schema.alterTable('timers').addColumn('last_error', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('timers').dropColumn('last_error').execute();
  await db.schema.alterTable('timers').dropColumn('failed_at').execute();
  await db.schema.alterTable('timers').dropColumn('lease_token').execute();
}
