import type { Kysely } from 'kysely';

/**
 * Whose a check-in is (features/checkins/): `proven` when it was started with the owner's proof,
 * so that one started with the link alone fires as a link-only alert, and the owner's own start
 * replaces it; `fix_proven` when the position it keeps was sent with the owner's proof, the only
 * kind an alarm the server raises may give as the owner's last known position. Rows written before
 * are neither: where a position came from was not kept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('checkins')
    .addColumn('proven', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('checkins')
    .addColumn('fix_proven', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('checkins').dropColumn('fix_proven').execute();
  await db.schema.alterTable('checkins').dropColumn('proven').execute();
}
