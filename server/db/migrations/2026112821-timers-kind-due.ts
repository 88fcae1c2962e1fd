import type { Kysely } from 'kysely';

/**
 * The job engine's claim asks for due jobs of the kinds a process handles (`kind in (…) and
 * due_at <= now`, oldest first): an index on (kind, due_at) reads only the due ones, kind by kind.
 * With the due time alone indexed, SQLite took the (kind, subject) index for the kinds and read
 * every waiting job (an alert's escalation, its SMS) at each claim. It replaces the index on the
 * due time alone, which nothing else reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('timers_kind_due_idx').on('timers').columns(['kind', 'due_at']).execute();
  await db.schema.dropIndex('timers_due_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('timers_due_idx').on('timers').column('due_at').execute();
  await db.schema.dropIndex('timers_kind_due_idx').execute();
}
