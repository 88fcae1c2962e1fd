import { type Kysely, sql } from 'kysely';

/** `next_attempt_at` of a delivery the job engine sends: never due to an older process's claim (deliveries.ts). */
const NOT_FOR_OLDER_CLAIMS = Number.MAX_SAFE_INTEGER;

/**
 * Each SMS becomes a job of the job engine (server/lib/timers.ts, kind `sms`, subject the
 * delivery's id): every unfinished delivery gets its job, due when the dispatcher would have
 * taken it (a `sending` one when its lease lapses, so a process of the older version still
 * sending it is not overtaken), and its `next_attempt_at` is set where an older process's claim
 * never finds it: during a rolling deploy only the engine sends it. Deliveries that older
 * process queues afterwards get their jobs from the `sms-of-older-processes` job.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    insert into timers (id, kind, subject, due_at, attempts, lease_until, lease_token, failed_at, last_error, created_at)
    select 'sms:' || id, 'sms', id,
           case when status = 'sending' then coalesce(claimed_until, next_attempt_at) else next_attempt_at end,
           0, null, null, null, null, updated_at
    from deliveries
    where status in ('queued', 'sending')
    on conflict (kind, subject) do nothing
  `.execute(db);
  await sql`
    update deliveries set next_attempt_at = ${sql.lit(NOT_FOR_OLDER_CLAIMS)}
    where status in ('queued', 'sending')
  `.execute(db);
}

/** Back to the dispatcher's own queue: each unfinished delivery due when its job was. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    update deliveries set
      next_attempt_at = coalesce((select due_at from timers where kind = 'sms' and subject = deliveries.id), updated_at),
      claimed_until = case when status = 'sending' then 0 else claimed_until end
    where status in ('queued', 'sending')
  `.execute(db);
  await sql`delete from timers where kind = 'sms'`.execute(db);
}
