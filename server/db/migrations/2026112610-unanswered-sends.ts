import type { Kysely } from 'kysely';

/**
 * SMS sends the provider never answered: the start of a delivery's first attempt that timed out
 * or was left `sending` by its dispatcher. The provider may hold that message all the same, so
 * each later attempt first asks it (features/alerts/dispatcher.ts); null while every attempt was answered.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('deliveries').addColumn('unanswered_since', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('deliveries').dropColumn('unanswered_since').execute();
}
