import { describe, expect, it, vi } from 'vitest';
import { createJobs, type DueJob, enqueue, enqueueMany } from '../../server/jobs/index.js';
import { ManualClock } from '../../server/lib/clock.js';
import { JOB_LEASE_MS } from '../../server/lib/reliability.js';
import { dbLabel, suiteApp } from './helper.js';
import { secondConnection } from './second-process.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

// What a kind may ask of the job engine beyond the defaults: its own places per process (a
// provider's bound, freed as soon as its effect is handed over), jobs written already leased to
// the process whose transaction wrote them and run by it right after the commit, its own backoff,
// failures it calls permanent, and its own rows written as a job is parked.
describe(`the job engine's kinds (${dbLabel})`, () => {
  const t = suiteApp();
  let kinds = 0;
  const newKind = () => {
    kinds += 1;
    return `kind-${kinds}`;
  };
  // An hour ahead of the app's clock: the app's own engine knows none of these kinds anyway.
  const clockAhead = () => new ManualClock(t.clock.now() + HOUR);
  const jobOf = async (kind: string, subject: string) =>
    (await t.app.db
      .selectFrom('jobs')
      .select(['due_at', 'attempts', 'lease_until', 'lease_token', 'failed_at', 'last_error'])
      .where('kind', '=', kind)
      .where('subject', '=', subject)
      .executeTakeFirst()) ?? null;

  it('runs at most `concurrency` jobs of a kind at once, a freed place taking the next while the run ends', async () => {
    const clock = clockAhead();
    const kind = newKind();
    const engine = createJobs({ db: t.app.db, dialect: t.app.dialect, clock, kinds: { [kind]: { concurrency: 2 } } });
    let active = 0;
    let peak = 0;
    const started: string[] = [];
    const releases = new Map<string, () => void>();
    engine.handle(kind, async ({ subject, releasePlace }) => {
      active += 1;
      peak = Math.max(peak, active);
      started.push(subject);
      await new Promise<void>((resolve) => releases.set(subject, resolve));
      active -= 1;
      // The effect is handed over: the place goes, while the run's bookkeeping waits.
      releasePlace?.();
      await new Promise<void>((resolve) => releases.set(`${subject}:end`, resolve));
    });
    for (let i = 0; i < 5; i += 1)
      await enqueue<string>(t.app.db, { kind, subject: `j${i}`, dueAt: clock.now(), now: clock.now() });
    const sweep = engine.runDue();
    await vi.waitFor(() => expect(started).toHaveLength(2));
    releases.get(started[0] as string)?.();
    releases.get(started[1] as string)?.();
    // Both places freed in one turn: the next two are claimed, though the first two have not ended.
    await vi.waitFor(() => expect(started).toHaveLength(4));
    expect(peak).toBe(2);
    for (let i = 0; i < 40 && started.length < 5; i += 1) {
      for (const [key, release] of releases) {
        releases.delete(key);
        release();
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await vi.waitFor(() => expect(started).toHaveLength(5));
    for (let i = 0; i < 20 && releases.size > 0; i += 1) {
      for (const [key, release] of releases) {
        releases.delete(key);
        release();
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await sweep).toBe(5);
    expect(peak).toBe(2);
    expect(new Set(started).size).toBe(5);
    expect(await t.app.db.selectFrom('jobs').select('id').where('kind', '=', kind).execute()).toEqual([]);
  });

  it('claims within a second what falls due while a long run holds its sweep', async () => {
    const clock = clockAhead();
    const slow = newKind();
    const quick = newKind();
    const engine = createJobs({ db: t.app.db, dialect: t.app.dialect, clock, kinds: { [slow]: {}, [quick]: {} } });
    let finish = () => {};
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const ran: string[] = [];
    engine.handle(slow, async () => {
      ran.push(slow);
      await finished;
    });
    engine.handle(quick, async () => void ran.push(quick));
    await enqueue<string>(t.app.db, { kind: slow, subject: 's', dueAt: clock.now(), now: clock.now() });
    // The periodic sweep's call, which waits for the slow run (the next periodic call waits with it).
    const sweep = engine.runDue();
    await vi.waitFor(() => expect(ran).toEqual([slow]));
    // Set by another process: nothing here is told.
    await enqueue<string>(t.app.db, { kind: quick, subject: 'q', dueAt: clock.now(), now: clock.now() });
    const setAt = Date.now();
    await vi.waitFor(() => expect(ran).toEqual([slow, quick]), { timeout: 3_000, interval: 20 });
    expect(Date.now() - setAt).toBeLessThan(2_000);
    finish();
    await sweep;
  });

  it('runs jobs written leased right after their commit, with what the transaction handed them, and no claim', async () => {
    const clock = clockAhead();
    const kind = newKind();
    const engine = createJobs({ db: t.app.db, dialect: t.app.dialect, clock, kinds: { [kind]: { concurrency: 2 } } });
    const seen: { subject: string; attempt: number; fromWriter: unknown }[] = [];
    engine.handle(kind, async ({ subject, attempt, fromWriter }) => void seen.push({ subject, attempt, fromWriter }));
    const written = engine.claimAtWrite(kind, 3);
    expect(written.places).toBe(2);
    const rows = written.rows(['a', 'b', 'c'], clock.now());
    await t.app.db.transaction().execute((trx) => enqueueMany<string>(trx, rows));
    expect(await jobOf(kind, 'a')).toMatchObject({ attempts: 1, lease_until: clock.now() + 6 * SECOND });
    expect(await jobOf(kind, 'c')).toMatchObject({ attempts: 0, lease_until: null, lease_token: null });
    written.run((subject) => `handed ${subject}`);
    await engine.runDue();
    expect(seen.sort((x, y) => x.subject.localeCompare(y.subject))).toEqual([
      { subject: 'a', attempt: 1, fromWriter: 'handed a' },
      { subject: 'b', attempt: 1, fromWriter: 'handed b' },
      { subject: 'c', attempt: 1, fromWriter: undefined },
    ]);
    expect(await t.app.db.selectFrom('jobs').select('id').where('kind', '=', kind).execute()).toEqual([]);
    // A rolled back transaction gives its places back; a stopped engine lends none.
    engine.claimAtWrite(kind, 2).giveBack();
    expect(engine.claimAtWrite(kind, 2).places).toBe(2);
  });

  it('a process that wrote jobs leased and died: another takes them over once the lease lapses, each once', async () => {
    const clock = clockAhead();
    const kind = newKind();
    const kinds = { [kind]: { concurrency: 4 } };
    const writer = createJobs({ db: t.app.db, dialect: t.app.dialect, clock, kinds });
    writer.handle(kind, async () => {});
    const written = writer.claimAtWrite(kind, 2);
    await enqueueMany<string>(t.app.db, written.rows(['x', 'y'], clock.now()));
    // The writer dies before its `run`.
    const other = await secondConnection(t);
    try {
      const survivor = createJobs({ db: other.db, dialect: other.dialect, clock, kinds });
      const ran: DueJob[] = [];
      survivor.handle(kind, async (job) => void ran.push(job));
      expect(await survivor.runDue()).toBe(0);
      clock.advance(7 * SECOND);
      expect(await survivor.runDue()).toBe(2);
      expect(ran.map((r) => [r.subject, r.attempt]).sort()).toEqual([
        ['x', 2],
        ['y', 2],
      ]);
      expect(await survivor.runDue()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it("backs off by the kind's own waits, parks a permanent failure at once, and writes the kind's rows as it parks", async () => {
    const clock = clockAhead();
    const kind = newKind();
    const engine = createJobs({
      db: t.app.db,
      dialect: t.app.dialect,
      clock,
      log: { error() {}, warn() {} } as never,
      // No jitter: the kind's own waits as they are.
      random: () => 0.5,
      kinds: {
        [kind]: {
          attempts: 2,
          retry: { firstMs: 7 * SECOND, mostMs: HOUR },
          permanent: 'those it says are',
          parked: 'its subject noted',
        },
      },
    });
    const parked: { subject: string; error: string }[] = [];
    engine.handle(
      kind,
      async ({ subject }) => {
        throw Object.assign(new Error(`${subject} refused`), { permanent: subject === 'never' });
      },
      {
        permanent: (error) => (error as { permanent?: boolean }).permanent === true,
        parked: async (db, subject, error) => {
          // In the parking's transaction: it sees the job parked.
          const job = await db
            .selectFrom('jobs')
            .select('failed_at')
            .where('kind', '=', kind)
            .where('subject', '=', subject)
            .executeTakeFirst();
          parked.push({ subject, error: `${String(error)} ${job?.failed_at === clock.now()}` });
        },
      },
    );
    await enqueue<string>(t.app.db, { kind, subject: 'later', dueAt: clock.now(), now: clock.now() });
    await enqueue<string>(t.app.db, { kind, subject: 'never', dueAt: clock.now(), now: clock.now() });
    await engine.runDue();
    expect(await jobOf(kind, 'later')).toMatchObject({ due_at: clock.now() + 7 * SECOND, failed_at: null });
    expect(await jobOf(kind, 'never')).toMatchObject({ attempts: 1, failed_at: clock.now() });
    expect(parked).toEqual([{ subject: 'never', error: 'Error: never refused true' }]);
    clock.advance(7 * SECOND);
    await engine.runDue();
    expect(await jobOf(kind, 'later')).toMatchObject({ attempts: 2, failed_at: clock.now() });
    expect(parked.map((p) => p.subject)).toEqual(['never', 'later']);
    expect(engine.failedCounts.get(kind)).toBe(2);
  });

  it('backs off a kind without waits of its own by doubling with ±20 % jitter: jobs failed together are not retried together', async () => {
    const clock = clockAhead();
    const draws = [0, 0.75, 0.25];
    const kind = newKind();
    const engine = createJobs({
      db: t.app.db,
      dialect: t.app.dialect,
      clock,
      log: { error() {}, warn() {} } as never,
      retryMs: 10 * SECOND,
      random: () => draws.shift() ?? 0.5,
      kinds: { [kind]: {} },
    });
    engine.handle(kind, async ({ subject }) => {
      throw new Error(`${subject} refused`);
    });
    const subjects = ['first', 'second'];
    for (const subject of subjects)
      await enqueue<string>(t.app.db, { kind, subject, dueAt: clock.now(), now: clock.now() });
    await engine.runDue();
    const waits = async () =>
      (await Promise.all(subjects.map((subject) => jobOf(kind, subject)))).map(
        (job) => Number(job?.due_at) - clock.now(),
      );
    // 10 s × 0.8 and × 1.1, whichever failed first.
    expect((await waits()).sort((a, b) => a - b)).toEqual([8 * SECOND, 11 * SECOND]);
    clock.advance(12 * SECOND);
    await engine.runDue();
    // Doubled after the second failure: 20 s × 0.9, then × 1.0.
    expect((await waits()).sort((a, b) => a - b)).toEqual([18 * SECOND, 20 * SECOND]);
  });

  it('answers whether a run holds its job at once while half its lease is left, and asks the database (renewing it) after', async () => {
    const clock = clockAhead();
    const kind = newKind();
    const engine = createJobs({ db: t.app.db, dialect: t.app.dialect, clock, kinds: { [kind]: {} } });
    const seen: { holds: boolean; leaseUntil: number }[] = [];
    engine.handle(kind, async ({ subject, holds }) => {
      const leaseOf = async () => Number((await jobOf(kind, subject))?.lease_until);
      // A second after its claim: answered without a statement, the lease as the claim wrote it.
      clock.advance(SECOND);
      seen.push({ holds: await holds(), leaseUntil: await leaseOf() });
      clock.advance(JOB_LEASE_MS / 2);
      // Less than half its lease left: asked of the database, which renews it from now.
      seen.push({ holds: await holds(), leaseUntil: await leaseOf() });
    });
    const claimedAt = clock.now();
    await enqueue<string>(t.app.db, { kind, subject: 'fresh', dueAt: clock.now(), now: clock.now() });
    await engine.runDue();
    expect(seen).toEqual([
      { holds: true, leaseUntil: claimedAt + JOB_LEASE_MS },
      { holds: true, leaseUntil: clock.now() + JOB_LEASE_MS },
    ]);
  });
});
