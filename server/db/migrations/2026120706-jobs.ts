import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * The job engine's table is called for what it holds: `timers` becomes `jobs`, its index and
 * constraints with it. On PostgreSQL a view `timers` over `jobs` lets the processes of the
 * version before go on during a rolling upgrade (every statement they run on `timers`, the
 * claim's FOR UPDATE SKIP LOCKED and the inserts' ON CONFLICT included, goes through to `jobs`);
 * a server on SQLite is one process, stopped before its successor starts. The view stands on
 * every column of `jobs`: a later migration that drops or retypes one drops the view first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('timers').renameTo('jobs').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter index timers_kind_due_idx rename to jobs_kind_due_idx`.execute(db);
    await sql`alter table jobs rename constraint timers_pkey to jobs_pkey`.execute(db);
    await sql`alter table jobs rename constraint timers_kind_subject_unique to jobs_kind_subject_unique`.execute(db);
    await sql`create view timers as select * from jobs`.execute(db);
    return;
  }
  await db.schema.dropIndex('timers_kind_due_idx').execute();
  await db.schema.createIndex('jobs_kind_due_idx').on('jobs').columns(['kind', 'due_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop view timers`.execute(db);
    await sql`alter table jobs rename constraint jobs_kind_subject_unique to timers_kind_subject_unique`.execute(db);
    await sql`alter table jobs rename constraint jobs_pkey to timers_pkey`.execute(db);
    await sql`alter index jobs_kind_due_idx rename to timers_kind_due_idx`.execute(db);
  } else {
    await db.schema.dropIndex('jobs_kind_due_idx').execute();
    await db.schema.createIndex('timers_kind_due_idx').on('jobs').columns(['kind', 'due_at']).execute();
  }
  await db.schema.alterTable('jobs').renameTo('timers').execute();
}
