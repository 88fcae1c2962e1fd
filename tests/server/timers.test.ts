import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/lib/clock.js';
import { BACKOFF_JITTER, JOB_LEASE_MS } from '../../server/lib/reliability.js';
import {
  cancelTimer,
  createTimers,
  type DueTimer,
  setTimer,
  type Timers,
  timerDueAt,
} from '../../server/lib/timers.js';
import { dbLabel, suiteApp } from './helper.js';
import { secondConnection, secondServer } from './second-process.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

// The durable timers every scheduled job runs from: a row with a due time, run once across
// processes and restarts, taken over when the process running it dies, retried when it fails.
describe(`durable timers (${dbLabel})`, () => {
  const t = suiteApp();
  let kinds = 0;
  /** A kind of its own per test; the suite app's periodic sweep runs it too, as a server would. */
  const kindWith = (handler: (timer: DueTimer) => Promise<void>, timers: Timers = t.app.timers) => {
    kinds += 1;
    const kind = `test-${kinds}`;
    timers.on(kind, handler);
    return kind;
  };
  const set = (kind: string, subject: string, inMs: number, mode?: 'replace' | 'keep') =>
    setTimer(t.app.db, { kind, subject, dueAt: t.clock.now() + inMs, now: t.clock.now() }, mode);

  it('runs each of 40 due timers exactly once with two processes sweeping at the same time', async () => {
    const runs: string[] = [];
    const run = async ({ subject }: DueTimer) => {
      // Let the other process's claims interleave with this run.
      await new Promise(setImmediate);
      runs.push(subject);
    };
    const kind = kindWith(run);
    const other = await secondConnection(t);
    try {
      const otherTimers = createTimers({ db: other.db, dialect: other.dialect, clock: t.clock });
      otherTimers.on(kind, run);
      for (let i = 0; i < 40; i += 1) await set(kind, `s${i}`, i);
      t.clock.advance(SECOND);
      await Promise.all([t.app.timers, otherTimers].flatMap((timers) => [timers.runDue(), timers.runDue()]));
      expect(runs.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `s${i}`).sort());
      expect(await timerDueAt(t.app.db, kind, 's0')).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('runs nothing before its time, then once, with the time it was due', async () => {
    const seen: DueTimer[] = [];
    const kind = kindWith(async (timer) => {
      seen.push(timer);
    });
    const dueAt = t.clock.now() + MINUTE;
    await set(kind, 'a', MINUTE);
    await t.app.timers.runDue();
    expect(seen).toEqual([]);
    t.clock.advance(10 * MINUTE);
    await t.app.timers.runDue();
    await t.app.timers.runDue();
    expect(seen.map(({ signal, free, holds, leaseToken, ...timer }) => timer)).toEqual([
      { subject: 'a', dueAt, attempt: 1 },
    ]);
  });

  it('a cancelled timer never runs; replace moves a waiting timer, keep does not', async () => {
    const seen: string[] = [];
    const kind = kindWith(async ({ subject }) => {
      seen.push(subject);
    });
    await set(kind, 'cancelled', MINUTE);
    await cancelTimer(t.app.db, kind, 'cancelled');
    await set(kind, 'moved', MINUTE);
    await set(kind, 'moved', 3 * MINUTE, 'replace');
    await set(kind, 'kept', MINUTE);
    await set(kind, 'kept', 3 * MINUTE, 'keep');
    expect(await timerDueAt(t.app.db, kind, 'kept')).toBe(t.clock.now() + MINUTE);
    t.clock.advance(2 * MINUTE);
    await t.app.timers.runDue();
    expect(seen).toEqual(['kept']);
    t.clock.advance(2 * MINUTE);
    await t.app.timers.runDue();
    expect(seen).toEqual(['kept', 'moved']);
  });

  it('a timer set again while it runs (replace, or keep) gets its new turn instead of being removed', async () => {
    const seen: number[] = [];
    let mode: 'replace' | 'keep' = 'replace';
    const kind = kindWith(async ({ subject, attempt }) => {
      seen.push(attempt);
      if (seen.length < 3) await set(kind, subject, MINUTE, mode);
      mode = 'keep';
    });
    await set(kind, 'again', 0);
    await t.app.timers.runDue();
    expect(await timerDueAt(t.app.db, kind, 'again')).toBe(t.clock.now() + MINUTE);
    t.clock.advance(MINUTE);
    await t.app.timers.runDue();
    t.clock.advance(MINUTE);
    await t.app.timers.runDue();
    expect(seen).toEqual([1, 1, 1]);
    expect(await timerDueAt(t.app.db, kind, 'again')).toBeNull();
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
      const wait = Number(await timerDueAt(t.app.db, kind, 'flaky')) - t.clock.now();
      expect(wait).toBeGreaterThanOrEqual(ms * (1 - BACKOFF_JITTER));
      expect(wait).toBeLessThanOrEqual(ms * (1 + BACKOFF_JITTER));
      t.clock.advance(wait);
    };
    await set(kind, 'flaky', 0);
    await t.app.timers.runDue();
    await waitsAbout(5 * SECOND);
    await t.app.timers.runDue();
    await waitsAbout(10 * SECOND);
    await t.app.timers.runDue();
    expect(seen).toEqual([1, 2, 3]);
    expect(await timerDueAt(t.app.db, kind, 'flaky')).toBeNull();
  });

  it('takes over a timer whose process died mid-run once its lease lapses, and not before', async () => {
    const seen: string[] = [];
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => (started = resolve));
    const dying = createTimers({ db: t.app.db, dialect: t.app.dialect, clock: t.clock });
    const kind = kindWith(async ({ subject }) => {
      seen.push(subject);
    });
    // The dying process's handler starts and never ends (the process is gone).
    dying.on(kind, () => {
      started();
      return new Promise<never>(() => {});
    });
    await set(kind, 'orphan', 0);
    void dying.runDue();
    await running;
    // It is gone: it takes nothing more (its engine would otherwise go on claiming beside its hung run).
    await dying.stop(0);
    await t.app.timers.runDue();
    expect(seen).toEqual([]);
    // A lease is short (no renewal comes from a dead process): past it, the job is taken over.
    t.clock.advance(JOB_LEASE_MS + SECOND);
    await t.app.timers.runDue();
    expect(seen).toEqual(['orphan']);
  });

  it('runs what fell due while the server was down as soon as a server starts, with the real due time', async () => {
    const kind = `restart-${Date.now()}`;
    const dueAt = t.clock.now() + MINUTE;
    await set(kind, 'checkin-1', MINUTE);
    // No process handles this kind until the new server starts, an hour after the due time.
    const second = await secondServer(t, new ManualClock(dueAt + HOUR));
    const restarted = second.app;
    try {
      const seen: DueTimer[] = [];
      restarted.timers.on(kind, async (timer) => {
        seen.push(timer);
      });
      await restarted.ready();
      // The sweep the server runs when it is ready (and every second after).
      await restarted.periodic.runNow('timers');
      expect(seen.map(({ signal, free, holds, leaseToken, ...timer }) => timer)).toEqual([
        { subject: 'checkin-1', dueAt, attempt: 1 },
      ]);
    } finally {
      await second.close();
    }
  });
});
