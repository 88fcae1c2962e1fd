import { CompiledQuery, type Kysely, sql } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import type { Database, Db, Job } from '../../server/db/schema.js';
import { createJobs, type JobInput, jobRow } from '../../server/jobs/index.js';
import { newId } from '../../server/lib/ids.js';
import { dbKind, dbLabel, describeOn, suiteApp, type TestApp } from './helper.js';
import { countingBuilds, watchStatements } from './statements-seen.js';

/** SMS jobs (their deliveries are not needed to claim them) due at the given times, written in one statement. */
async function dueJobs(db: Db, dueAts: number[], now: number, extra: Partial<Job> = {}): Promise<string[]> {
  const rows = dueAts.map((dueAt) => ({
    ...jobRow({ kind: 'sms', subject: newId(), dueAt, now } as JobInput),
    ...extra,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto('jobs')
      .values(rows.slice(i, i + 500))
      .execute();
  return rows.map((row) => row.subject);
}

/** An engine that runs SMS jobs `concurrency` at a time and records the subjects in the order it ran them. */
function recordingEngine(db: Kysely<Database>, t: TestApp, concurrency: number) {
  const ran: string[] = [];
  const engine = createJobs({ db, dialect: t.app.dialect, clock: t.clock, kinds: { sms: { concurrency } } });
  engine.handle('sms', async ({ subject }) => void ran.push(subject));
  return { engine, ran };
}

// The job engine's claim of SMS jobs with a long backlog: SMS queued behind a provider that
// takes them ten at a time, and one left leased by a process that died.

describe(`claiming due SMS jobs from a backlog (${dbLabel})`, () => {
  const t = suiteApp();

  it('takes the oldest due first, whichever way each is due, and nothing else', async () => {
    // Only the claims of this test take these rows: the app's own engine takes no more.
    await t.app.dispatcher.stop();
    const now = t.clock.now();
    const backlog = await dueJobs(
      t.app.db,
      Array.from({ length: 300 }, (_, i) => now - 300_000 + i * 1000),
      now,
    );
    const [abandoned] = await dueJobs(t.app.db, [now - 600_000], now, {
      lease_until: now - 1,
      lease_token: 'dead',
      attempts: 1,
    });
    const [held] = await dueJobs(t.app.db, [now - 700_000], now, {
      lease_until: now + 60_000,
      lease_token: 'alive',
      attempts: 1,
    });
    const [later] = await dueJobs(t.app.db, [now + 60_000], now);

    const { engine, ran } = recordingEngine(t.app.db, t, 5);
    expect(await engine.runDue()).toBe(301);
    // The five oldest due were the first claim's, in whatever order the update returned them.
    expect(ran.slice(0, 5).sort()).toEqual([abandoned, ...backlog.slice(0, 4)].sort());
    // Every due job once, the abandoned one; never the one still held, nor the one not yet due.
    expect(new Set(ran).size).toBe(301);
    const left = await t.app.db
      .selectFrom('jobs')
      .select('subject')
      .where('kind', '=', 'sms')
      .orderBy('due_at')
      .execute();
    expect(left.map((row) => row.subject)).toEqual([held, later]);
    await t.app.db.deleteFrom('jobs').where('kind', '=', 'sms').execute();
  });

  it('builds its statement once: each claim brings only its time, lease, token and limits', async () => {
    await t.app.dispatcher.stop();
    const now = t.clock.now();
    const jobs = await dueJobs(
      t.app.db,
      [-4, -3, -2, -1, 10].map((seconds) => now + seconds * 1000),
      now,
    );
    // The database as the claim sees it, counting the queries started on it.
    const { db, counted } = countingBuilds(t.app.db, ['selectFrom', 'updateTable', 'with']);
    const { engine, ran } = recordingEngine(db, t, 1);
    expect(await engine.runDue()).toBe(4);
    counted.built = 0;
    t.clock.advance(10_000);
    expect(await engine.runDue()).toBe(1);
    expect(counted.built).toBe(0);
    expect(ran).toEqual(jobs);
  });
});

// PostgreSQL's plan of the claim, read with EXPLAIN ANALYZE (SQLite's one UPDATE has no other way
// in), on a database of its own: the planner's statistics are those this test makes.
const describeOnPostgres = dbKind === 'postgres' ? describe : (_name: string, _body: () => void) => undefined;
describeOnPostgres(`the claim's plan with a backlog the statistics have not seen (${dbLabel})`, () => {
  const t = suiteApp();

  it('reads the rows it takes, not the backlog, with statistics taken while the queue was empty', async () => {
    await t.app.dispatcher.stop();
    const now = t.clock.now();
    // The planner's statistics as a running server's are before a burst: no job waiting but a few far off.
    await dueJobs(
      t.app.db,
      Array.from({ length: 20 }, (_, i) => now + 9_000_000 + i * 1000),
      now,
    );
    await sql`analyze jobs`.execute(t.app.db);
    await dueJobs(
      t.app.db,
      Array.from({ length: 3000 }, (_, i) => now - 3_000_000 + i * 1000),
      now,
    );
    // Four places, each held until the plan is read: the first claim's four jobs, and no other claim.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const engine = createJobs({
      db: t.app.db,
      dialect: t.app.dialect,
      clock: t.clock,
      kinds: { sms: { concurrency: 4 } },
    });
    engine.handle('sms', async ({ subject }) => {
      ran.push(subject);
      await held;
    });
    const watched = watchStatements();
    const running = engine.runDue();
    try {
      await vi.waitFor(() => expect(ran).toHaveLength(4));
    } finally {
      watched.stop();
    }
    const claim = watched.seen.find((statement) => statement.sql.includes('for update skip locked'));
    expect(claim).toBeDefined();
    // The same claim once more, as the planner runs it, then rolled back.
    let plan: Record<string, unknown> | undefined;
    const rolledBack = new Error('rolled back');
    await t.app.db
      .transaction()
      .execute(async (trx) => {
        const explained = CompiledQuery.raw(`explain (analyze, format json) ${claim?.sql}`, [
          ...(claim?.parameters ?? []),
        ]);
        const { rows } = await trx.executeQuery<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }>(explained);
        plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
        throw rolledBack;
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
    expect(plan).toBeDefined();
    // How the update finds the rows to write (its outer plan, beside the arms' CTEs): by the few
    // ids the arms took, not by reading the 2,996 other due jobs again.
    const finding = (plan?.Plans as Record<string, unknown>[] | undefined)?.find(
      (node) => node['Parent Relationship'] === 'Outer',
    );
    expect(finding).toBeDefined();
    const rowsRead = (node: Record<string, unknown>): number =>
      Number(node['Actual Rows'] ?? 0) * Number(node['Actual Loops'] ?? 1) +
      ((node.Plans as Record<string, unknown>[] | undefined) ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
    expect(rowsRead(finding as Record<string, unknown>)).toBeLessThan(100);
    const stopped = engine.stop();
    release();
    await stopped;
    await running;
  });
});

// SQLite's plan of the claim: each arm reads the due rows of its kind from the (kind, due_at)
// index, in order. Without it SQLite took the (kind, subject) index for the kind and sorted every
// waiting job of that kind at each claim (an alert's escalation job waits five minutes: a claim
// cost as much as the waiting jobs were many).
describeOn('sqlite')(`the claim's plan with many jobs waiting (${dbLabel})`, () => {
  const t = suiteApp();

  it('reads each kind’s due jobs from the (kind, due_at) index, in order, not every waiting job', async () => {
    await t.app.dispatcher.stop();
    const now = t.clock.now();
    await dueJobs(
      t.app.db,
      Array.from({ length: 2000 }, (_, i) => now + 300_000 + i),
      now,
    );
    const [due] = await dueJobs(t.app.db, [now - 1000], now);
    const { engine, ran } = recordingEngine(t.app.db, t, 4);
    const watched = watchStatements();
    try {
      expect(await engine.runDue()).toBe(1);
    } finally {
      watched.stop();
    }
    expect(ran).toEqual([due]);
    const claim = watched.seen.find((statement) => /^update "jobs"/i.test(statement.sql.trim()));
    expect(claim).toBeDefined();
    const plan = await t.app.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${claim?.sql}`, [...(claim?.parameters ?? [])]),
    );
    const details = plan.rows.map((row) => row.detail);
    // The due jobs, by the arm's index range; then the rows to write, by their ids.
    const arms = details.filter((detail) => /^(SEARCH|SCAN) jobs\b/.test(detail) && !/\(id=\?\)$/.test(detail));
    expect(arms.length).toBeGreaterThan(0);
    for (const arm of arms) expect(arm).toBe('SEARCH jobs USING INDEX jobs_kind_due_idx (kind=? AND due_at<?)');
    expect(details.filter((detail) => detail.includes('TEMP B-TREE'))).toEqual([]);
    await engine.stop();
  });
});
