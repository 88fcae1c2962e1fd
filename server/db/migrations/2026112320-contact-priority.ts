import type { Kysely } from 'kysely';

/**
 * The order in which contacts are alerted: on a plan with fewer contacts than the person
 * has, the first ones within the limit are alerted. 0 for every contact keeps the order they
 * were added in; choosing a contact to stay alerted gives it a lower number than the rest.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('contacts')
    .addColumn('priority', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('contacts').dropColumn('priority').execute();
}
