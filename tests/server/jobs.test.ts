import { describe, expect, it } from 'vitest';
import { cancelJob, createJobs, type DueJob, enqueue, type Jobs, jobDueAt } from '../../server/jobs/index.js';
import { ManualClock } from '../../server/lib/clock.js';
import { BACKOFF_JITTER, JOB_LEASE_MS } from '../../server/lib/reliability.js';
import { dbLabel, suiteApp } from './helper.js';
import { secondConnection } from './second-process.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

// The jobs every piece of later work runs as: a row with a due time, run once across processes
// and restarts, taken over when the process running it dies, retried when it fails.
describe(`jobs (${dbLabel})`, () => {
  const t = suiteApp();
  let kinds = 0;
  /** This process's engine for a kind of its own per test (the suite app's engine knows none of them). */
  let engine: Jobs;
  const kindWith = (handler: (job: DueJob) => Promise<void>) => {
    kinds += 1;
    const kind = `test-${kinds}`;
    engine = createJobs({ db: t.app.db, dialect: t.app.dialect, clock: t.clock, kinds: { [kind]: {} } });
    engine.handle(kind, handler);
    return kind;
  };
  const set = (kind: string, subject: string, inMs: number, mode?: 'replace' | 'keep') =>
    enqueue<string>(t.app.db, { kind, subject, dueAt: t.clock.now() + inMs, now: t.clock.now() }, mode);

  it('runs each of 40 due jobs exactly once with two processes sweeping at the same time', async () => {
    const runs: string[] = [];
    const run = async ({ subject }: DueJob) => {
      // Let the other process's claims interleave with this run.
      await new Promise(setImmediate);
      runs.push(subject);
    };
    const kind = kindWith(run);
    const other = await secondConnection(t);
    try {
      const otherEngine = createJobs({ db: other.db, dialect: other.dialect, clock: t.clock, kinds: { [kind]: {} } });
      otherEngine.handle(kind, run);
      for (let i = 0; i < 40; i += 1) await set(kind, `s${i}`, i);
      t.clock.advance(SECOND);
      await Promise.all([engine, otherEngine].flatMap((jobs) => [jobs.runDue(), jobs.runDue()]));
      expect(runs.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `s${i}`).sort());
      expect(await jobDueAt<string>(t.app.db, kind, 's0')).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('runs nothing before its time, then once, with the time it was due', async () => {
    const seen: DueJob[] = [];
    const kind = kindWith(async (job) => {
      seen.push(job);
    });
    const dueAt = t.clock.now() + MINUTE;
    await set(kind, 'a', MINUTE);
    await engine.runDue();
    expect(seen).toEqual([]);
    t.clock.advance(10 * MINUTE);
    await engine.runDue();
    await engine.runDue();
    expect(seen.map(({ signal, releasePlace, holds, leaseToken, ...job }) => job)).toEqual([
      { subject: 'a', dueAt, attempt: 1 },
    ]);
  });

  it('a cancelled job never runs; replace moves a waiting job, keep does not', async () => {
    const seen: string[] = [];
    const kind = kindWith(async ({ subject }) => {
      seen.push(subject);
    });
    await set(kind, 'cancelled', MINUTE);
    await cancelJob<string>(t.app.db, kind, 'cancelled');
    await set(kind, 'moved', MINUTE);
    await set(kind, 'moved', 3 * MINUTE, 'replace');
    await set(kind, 'kept', MINUTE);
    await set(kind, 'kept', 3 * MINUTE, 'keep');
    expect(await jobDueAt<string>(t.app.db, kind, 'kept')).toBe(t.clock.now() + MINUTE);
    t.clock.advance(2 * MINUTE);
    await engine.runDue();
    expect(seen).toEqual(['kept']);
    t.clock.advance(2 * MINUTE);
    await engine.runDue();
    expect(seen).toEqual(['kept', 'moved']);
  });

  it('a job enqueued again while it runs (replace, or keep) gets its new turn instead of being removed', async () => {
    const seen: number[] = [];
    let mode: 'replace' | 'keep' = 'replace';
    const kind = kindWith(async ({ subject, attempt }) => {
      seen.push(attempt);
      if (seen.length < 3) await set(kind, subject, MINUTE, mode);
      mode = 'keep';
    });
    await set(kind, 'again', 0);
    await engine.runDue();
    expect(await jobDueAt<string>(t.app.db, kind, 'again')).toBe(t.clock.now() + MINUTE);
    t.clock.advance(MINUTE);
    await engine.runDue();
    t.clock.advance(MINUTE);
    await engine.runDue();
    expect(seen).toEqual([1, 1, 1]);
    expect(await jobDueAt<string>(t.app.db, kind, 'again')).toBeNull();
  });

  it('retries a failed run with growing waits, then finishes', async () => {
    let failures = 2;
    const seen: number[] = [];
    const kind = kindWith(async ({ attempt }) => {
      seen.push(attempt);
      if (failures > 0) {
        failures -= 1;
        throw new Error('provider down');
      }
    });
    /** The wait before the next run: 5 s doubling, within its jitter. */
    const waitsAbout = async (ms: number) => {
      const wait = Number(await jobDueAt<string>(t.app.db, kind, 'flaky')) - t.clock.now();
      expect(wait).toBeGreaterThanOrEqual(ms * (1 - BACKOFF_JITTER));
      expect(wait).toBeLessThanOrEqual(ms * (1 + BACKOFF_JITTER));
      t.clock.advance(wait);
    };
    await set(kind, 'flaky', 0);
    await engine.runDue();
    await waitsAbout(5 * SECOND);
    await engine.runDue();
    await waitsAbout(10 * SECOND);
    await engine.runDue();
    expect(seen).toEqual([1, 2, 3]);
    expect(await jobDueAt<string>(t.app.db, kind, 'flaky')).toBeNull();
  });

  it('takes over a job whose process died mid-run once its lease lapses, and not before', async () => {
    const seen: string[] = [];
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => (started = resolve));
    const kind = kindWith(async ({ subject }) => {
      seen.push(subject);
    });
    const dying = createJobs({ db: t.app.db, dialect: t.app.dialect, clock: t.clock, kinds: { [kind]: {} } });
    // The dying process's handler starts and never ends (the process is gone).
    dying.handle(kind, () => {
      started();
      return new Promise<never>(() => {});
    });
    await set(kind, 'orphan', 0);
    void dying.runDue();
    await running;
    // It is gone: it takes nothing more (its engine would otherwise go on claiming beside its hung run).
    await dying.stop(0);
    await engine.runDue();
    expect(seen).toEqual([]);
    // A lease is short (no renewal comes from a dead process): past it, the job is taken over.
    t.clock.advance(JOB_LEASE_MS + SECOND);
    await engine.runDue();
    expect(seen).toEqual(['orphan']);
  });

  it('runs what fell due while its processes were down as soon as one sweeps, with the real due time', async () => {
    const kind = `restart-${Date.now()}`;
    const dueAt = t.clock.now() + MINUTE;
    await set(kind, 'checkin-1', MINUTE);
    // No process runs this kind until one starts, an hour after the due time.
    const other = await secondConnection(t);
    try {
      const seen: DueJob[] = [];
      const restarted = createJobs({
        db: other.db,
        dialect: other.dialect,
        clock: new ManualClock(dueAt + HOUR),
        kinds: { [kind]: {} },
      });
      restarted.handle(kind, async (job) => {
        seen.push(job);
      });
      // The first sweep (a server runs one when it is ready: checkins.test.ts, escalation.test.ts).
      await restarted.runDue();
      expect(seen.map(({ signal, releasePlace, holds, leaseToken, ...job }) => job)).toEqual([
        { subject: 'checkin-1', dueAt, attempt: 1 },
      ]);
    } finally {
      await other.close();
    }
  });
});
