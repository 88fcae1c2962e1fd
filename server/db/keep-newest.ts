import type { Kysely } from 'kysely';
import type { Db } from './schema.js';

/** Tables of things an owner has a few of, the oldest dropped when a new one comes. */
type Capped = 'device_keys' | 'push_subscriptions';

/** Deletes all but the `max` newest rows of `table` that belong to `userId` (newest by `created_at`, then id). */
export async function keepNewest(db: Db, table: Capped, userId: string, max: number): Promise<void> {
  // The table is one of the two above; Kysely cannot follow a table name through a parameter.
  const any = db as unknown as Kysely<Record<string, { id: string; user_id: string; created_at: number }>>;
  const kept = any
    .selectFrom(table)
    .select('id')
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(max);
  await any
    .deleteFrom(table)
    .where('user_id', '=', userId)
    // The newest rows as a derived table: both databases take a LIMIT there.
    .where('id', 'not in', (eb) => eb.selectFrom(kept.as('kept')).select('kept.id'))
    .execute();
}
