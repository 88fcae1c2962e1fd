import type { Kysely } from 'kysely';

/**
 * The calls to a number since a given time, found from this index: a link-only alert's
 * escalation asks which of its contacts its account's link-only alerts already phoned within
 * the hour (features/alerts/repository.ts `numbersReached`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('escalation_calls_phone_created_idx')
    .on('escalation_calls')
    .columns(['phone_number', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('escalation_calls_phone_created_idx').execute();
}
