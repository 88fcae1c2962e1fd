import type { FastifyBaseLogger } from 'fastify';
import type { InsertQueryBuilder, InsertResult, Kysely } from 'kysely';
import { sql } from 'kysely';
import { claimRows } from '../db/claim.js';
import { compiledInsert } from '../db/compiled-once.js';
import type { Dialect } from '../db/index.js';
import type { Database, Db, Timer } from '../db/schema.js';
import type { Clock } from './clock.js';
import { orderedId } from './ids.js';
import { MINUTE, SECOND } from './time.js';

/** What a handler is told about the timer it runs. */
export interface DueTimer {
  subject: string;
  /** When it was due: a run late after a restart still knows the real time. */
  dueAt: number;
  /** 1 on the first run, more after failures or a takeover. */
  attempt: number;
}

/**
 * Runs one kind of timer. It may run again for the same due time (a failure, a process that
 * died mid-run): it makes its effect conditional on its own rows (a status moved in the same
 * transaction as the work), so the effect happens once. A throw retries it with backoff.
 */
export type TimerHandler = (timer: DueTimer) => Promise<void>;

/** The timer row `setTimer` writes. */
export const timerRow = ({
  kind,
  subject,
  dueAt,
  now,
}: {
  kind: string;
  subject: string;
  dueAt: number;
  now: number;
}) => ({
  id: orderedId(),
  kind,
  subject,
  due_at: dueAt,
  attempts: 0,
  lease_until: null,
  created_at: now,
});

/** What a timer already set for (kind, subject) becomes: due at the new time, unless `keep` finds it waiting. */
const onTimerConflict = (mode: 'replace' | 'keep') => (query: InsertQueryBuilder<Database, 'timers', InsertResult>) =>
  query.onConflict((oc) => {
    const update = oc
      .columns(['kind', 'subject'])
      .doUpdateSet({ due_at: (eb) => eb.ref('excluded.due_at'), attempts: 0, lease_until: null });
    return mode === 'replace' ? update : update.where('timers.lease_until', 'is not', null);
  });

/** `setTimer`'s statement for timer rows, for a caller that runs it inside one of its own (a WITH). */
export const timersInsert = (db: Db, rows: ReturnType<typeof timerRow>[], mode: 'replace' | 'keep' = 'replace') =>
  onTimerConflict(mode)(db.insertInto('timers').values(rows));

/** `setTimer`'s statement in each mode, built once (`compiledInsert`). */
const settingTimer = {
  replace: compiledInsert('timers', onTimerConflict('replace')),
  keep: compiledInsert('timers', onTimerConflict('keep')),
};

/**
 * Sets the (kind, subject) timer to `dueAt`, in `db` (a transaction sets it with the change
 * that needs it). `replace` moves a timer already set (an extended check-in); `keep` leaves a
 * waiting timer's due time alone (a summary already due sooner) but still sets a timer whose
 * run is in progress, so what that run could not see gets its own turn.
 */
export async function setTimer(
  db: Db,
  timer: { kind: string; subject: string; dueAt: number; now: number },
  mode: 'replace' | 'keep' = 'replace',
): Promise<void> {
  await settingTimer[mode](db, [timerRow(timer)]);
}

/** Removes the (kind, subject) timer: it will not run (a run in progress finishes). */
export async function cancelTimer(db: Db, kind: string, subject: string): Promise<void> {
  await db.deleteFrom('timers').where('kind', '=', kind).where('subject', '=', subject).execute();
}

/** When the (kind, subject) timer is due, or null when none is set. */
export async function timerDueAt(db: Db, kind: string, subject: string): Promise<number | null> {
  const row = await db
    .selectFrom('timers')
    .select('due_at')
    .where('kind', '=', kind)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return row ? Number(row.due_at) : null;
}

export interface TimersOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  clock: Clock;
  log?: Pick<FastifyBaseLogger, 'error'>;
  /** How long a run holds its timer before another process may take it over (ms). */
  leaseMs?: number;
  /** Timers taken at once, per process. */
  batch?: number;
  /** Wait after a failed run, doubled after each further one, up to `maxRetryMs` (ms). */
  retryMs?: number;
  maxRetryMs?: number;
}

export interface Timers {
  /** Registers the handler of `kind`; this process takes no timer of a kind it has no handler for. */
  on(kind: string, handler: TimerHandler): void;
  /** Runs every timer due now, until none is; resolves with how many ran (the sweep, and tests). */
  runDue(): Promise<number>;
  /** Runs what is due now in the background (after a commit that set a timer due at once). */
  kick(): void;
}

/**
 * The durable timers every scheduled job runs from. A timer is a row with a due time; the
 * periodic sweep (and `kick`) takes due rows under a lease with `claimRows` (FOR UPDATE SKIP
 * LOCKED on PostgreSQL), so any number of processes run each once; a process that died
 * mid-run leaves a lease that lapses, and the row is taken again. A server that was down runs
 * what fell due meanwhile at its first sweep, with the real due time.
 */
export function createTimers(options: TimersOptions): Timers {
  const { db, dialect, clock, log } = options;
  const leaseMs = options.leaseMs ?? MINUTE;
  const batch = options.batch ?? 20;
  const retryMs = options.retryMs ?? 5 * SECOND;
  const maxRetryMs = options.maxRetryMs ?? 5 * MINUTE;
  const handlers = new Map<string, TimerHandler>();
  let running: Promise<number> | null = null;
  let again = false;

  async function runOne(timer: Timer) {
    // The lease this process wrote when it took the row: the row stays ours while it holds.
    const lease = Number(timer.lease_until);
    try {
      const handler = handlers.get(timer.kind) as TimerHandler;
      await handler({ subject: timer.subject, dueAt: Number(timer.due_at), attempt: Number(timer.attempts) });
      // Set again while it ran (lease cleared): the new due time stands.
      await db.deleteFrom('timers').where('id', '=', timer.id).where('lease_until', '=', lease).execute();
    } catch (error) {
      const attempts = Number(timer.attempts);
      const wait = Math.min(retryMs * 2 ** (attempts - 1), maxRetryMs);
      log?.error({ err: error, kind: timer.kind, attempt: attempts }, 'timer run failed; it runs again');
      await db
        .updateTable('timers')
        .set({ lease_until: null, due_at: clock.now() + wait })
        .where('id', '=', timer.id)
        .where('lease_until', '=', lease)
        .execute();
    }
  }

  async function runBatches(): Promise<number> {
    let ran = 0;
    // Only kinds this process knows: a process of an older version leaves new kinds alone.
    const kinds = [...handlers.keys()];
    if (kinds.length === 0) return 0;
    for (;;) {
      const now = clock.now();
      const claimed = await claimRows(db, dialect, 'timers', {
        due: [
          (eb) =>
            eb.and([
              eb('kind', 'in', kinds),
              eb('due_at', '<=', now),
              eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
            ]),
        ],
        orderBy: 'due_at',
        set: { lease_until: now + leaseMs, attempts: sql<number>`attempts + 1` },
        limit: batch,
      });
      await Promise.all(claimed.map(runOne));
      ran += claimed.length;
      if (claimed.length < batch) return ran;
    }
  }

  function runDue(): Promise<number> {
    if (running) {
      again = true;
      return running.then(() => runDue());
    }
    running = (async () => {
      let total = 0;
      do {
        again = false;
        total += await runBatches();
      } while (again);
      return total;
    })().finally(() => {
      running = null;
    });
    return running;
  }

  return {
    on(kind, handler) {
      if (handlers.has(kind)) throw new Error(`timers of kind ${kind} handled twice`);
      handlers.set(kind, handler);
    },
    runDue,
    kick() {
      runDue().catch((error: unknown) => log?.error({ err: error }, 'timers could not be run'));
    },
  };
}
