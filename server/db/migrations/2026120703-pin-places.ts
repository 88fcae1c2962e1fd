import type { Kysely } from 'kysely';

/**
 * A check-in PIN answer takes its place in the owner's count before its hash is checked
 * (features/checkins/pin-tries-repository.ts): `reading` counts the answers being checked now, beside the
 * wrong ones, so that answers sent at once cannot all be read before the first is counted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('checkin_pin_tries')
    .addColumn('reading', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('checkin_pin_tries').dropColumn('reading').execute();
}
