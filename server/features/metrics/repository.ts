import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** The escalation calls, counted by status. */
export function callsByStatus(db: Kysely<Database>) {
  return db
    .selectFrom('escalation_calls')
    .select('status')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .groupBy('status')
    .execute();
}
