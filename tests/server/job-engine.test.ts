import { setTimeout as wait } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { createJobs, type DueJob, enqueue, type JobsOptions } from '../../server/jobs/index.js';
import { type Clock, systemClock } from '../../server/lib/clock.js';
import { dbLabel, suiteApp } from './helper.js';
import { secondConnection, secondServer } from './second-process.js';

const SECOND = 1000;

// What the job engine promises beyond a job's run: a lease renewed while its handler runs (a
// slow handler runs once), a run whose lease was taken over is told and leaves the job alone, a
// job out of attempts is parked as failed (logged, counted) while the rest of the queue goes on,
// and due times follow the database's clock whatever a process's own clock says.
describe(`the job engine (${dbLabel})`, () => {
  const t = suiteApp();
  let kinds = 0;
  const newKind = () => {
    kinds += 1;
    return `engine-${kinds}`;
  };
  const set = (kind: string, subject: string, inMs: number, clock: Clock = t.clock) =>
    enqueue<string>(t.app.db, { kind, subject, dueAt: clock.now() + inMs, now: clock.now() });
  const leaseOf = async (kind: string, subject: string) =>
    (await t.app.db
      .selectFrom('jobs')
      .select(['lease_until', 'lease_token', 'failed_at', 'last_error', 'attempts'])
      .where('kind', '=', kind)
      .where('subject', '=', subject)
      .executeTakeFirst()) ?? null;

  it('runs a handler slower than its lease once: the lease is renewed while it runs', async () => {
    const other = await secondConnection(t);
    try {
      const kind = newKind();
      const options = { clock: t.clock, leaseMs: 300, renewMs: 50, kinds: { [kind]: {} } };
      const slow = createJobs({ db: t.app.db, dialect: t.app.dialect, ...options });
      const sweeper = createJobs({ db: other.db, dialect: other.dialect, ...options });
      const runs: string[] = [];
      let finish: () => void = () => {};
      const finished = new Promise<void>((resolve) => (finish = resolve));
      slow.handle(kind, async ({ subject }) => {
        runs.push(`slow:${subject}`);
        await finished;
      });
      sweeper.handle(kind, async ({ subject }) => {
        runs.push(`sweeper:${subject}`);
      });
      await set(kind, 'long', 0);
      const running = slow.runDue();
      await vi.waitFor(() => expect(runs).toEqual(['slow:long']));
      // Far past the first lease: only a renewal written since keeps the job from the sweeper.
      t.clock.advance(10 * SECOND);
      await vi.waitFor(async () =>
        expect(Number((await leaseOf(kind, 'long'))?.lease_until)).toBeGreaterThan(t.clock.now()),
      );
      expect(await sweeper.runDue()).toBe(0);
      finish();
      await running;
      expect(runs).toEqual(['slow:long']);
      expect(await leaseOf(kind, 'long')).toBeNull();
    } finally {
      await other.close();
    }
  });

  it("tells a run whose job another process took over, and that run leaves the other's job alone", async () => {
    const kind = newKind();
    const engine = createJobs({
      db: t.app.db,
      dialect: t.app.dialect,
      clock: t.clock,
      leaseMs: 300,
      renewMs: 50,
      kinds: { [kind]: {} },
    });
    let signal: AbortSignal | undefined;
    engine.handle(kind, async (job) => {
      signal = job.signal;
      await new Promise((resolve) => job.signal.addEventListener('abort', resolve));
    });
    await set(kind, 'taken', 0);
    const running = engine.runDue();
    await vi.waitFor(() => expect(signal).toBeDefined());
    // Another process's claim, as it writes one when this run's lease has lapsed.
    await t.app.db.updateTable('jobs').set({ lease_token: 'another-process' }).where('kind', '=', kind).execute();
    await running;
    expect(signal?.aborted).toBe(true);
    expect(await leaseOf(kind, 'taken')).toMatchObject({ lease_token: 'another-process', failed_at: null });
  });

  it('parks a job that fails past its attempts as failed, logs it at error, and runs the rest of the queue', async () => {
    const errors: { message: string; kind?: string }[] = [];
    // The logger's two calls the engine makes, recorded (pino's overloads are wider than this).
    const log = {
      error: (fields: { kind?: string }, message: string) => {
        errors.push({ message, kind: fields.kind });
      },
      warn: () => {},
    } as unknown as JobsOptions['log'];
    const kind = newKind();
    const engine = createJobs({
      db: t.app.db,
      dialect: t.app.dialect,
      clock: t.clock,
      log,
      retryMs: SECOND,
      maxAttempts: 3,
      kinds: { [kind]: {} },
    });
    const ran: string[] = [];
    engine.handle(kind, async ({ subject }) => {
      ran.push(subject);
      if (subject === 'broken') throw new Error('the provider refuses this one');
    });
    await set(kind, 'broken', 0);
    for (let i = 0; i < 5; i += 1) {
      await set(kind, `fine-${i}`, 0);
      await engine.runDue();
      t.clock.advance(10 * SECOND);
    }
    expect(ran.filter((s) => s === 'broken')).toHaveLength(3);
    expect(ran.filter((s) => s.startsWith('fine-')).sort()).toEqual(['fine-0', 'fine-1', 'fine-2', 'fine-3', 'fine-4']);
    const parked = await leaseOf(kind, 'broken');
    expect(parked).toMatchObject({
      lease_token: null,
      attempts: 3,
      last_error: 'Error: the provider refuses this one',
    });
    expect(Number(parked?.failed_at)).toBeGreaterThan(0);
    expect(errors.filter((e) => e.message === 'job failed for good: parked as failed')).toEqual([
      { message: 'job failed for good: parked as failed', kind },
    ]);
    expect(engine.failedCounts.get(kind)).toBe(1);
    // Parked, it is not run again, until the change that needs it sets it anew.
    t.clock.advance(10 * 60 * SECOND);
    await engine.runDue();
    expect(ran.filter((s) => s === 'broken')).toHaveLength(3);
    await set(kind, 'broken', 0);
    await engine.runDue();
    expect(ran.filter((s) => s === 'broken')).toHaveLength(4);
  });

  it("fires nothing early, late or twice with two processes whose clocks are 61 s apart: both follow the database's", async () => {
    const ahead: Clock = { now: () => Date.now() + 61 * SECOND, sleep: systemClock.sleep };
    const onTime = await secondServer(t, systemClock);
    const early = await secondServer(t, ahead);
    try {
      const kind = newKind();
      const runs: { subject: string; by: string; at: number }[] = [];
      const handle =
        (by: string) =>
        async ({ subject }: DueJob) => {
          runs.push({ subject, by, at: Date.now() });
        };
      await Promise.all([onTime.app.ready(), early.app.ready()]);
      // Each process's engine, on its clock (the database's at its last sync, and its own since).
      const both = [onTime, early].map(({ app }, i) => {
        const engine = createJobs({ db: app.db, dialect: app.dialect, clock: app.clock, kinds: { [kind]: {} } });
        engine.handle(kind, handle(i === 0 ? 'on time' : 'ahead'));
        return engine;
      });
      // A walk home set through each process, due 1.5 s from now on the database's clock.
      const dueAt = Date.now() + 1500;
      for (const [subject, clock] of [
        ['set-on-time', onTime.app.clock],
        ['set-ahead', early.app.clock],
      ] as const) {
        await enqueue<string>(t.app.db, { kind, subject, dueAt: clock.now() + 1500, now: clock.now() });
      }
      while (runs.length < 2 && Date.now() < dueAt + 5 * SECOND) {
        await Promise.all(both.map((engine) => engine.runDue()));
        await wait(20);
      }
      await Promise.all(both.map((engine) => engine.runDue()));
      expect(runs.map((run) => run.subject).sort()).toEqual(['set-ahead', 'set-on-time']);
      // The database and these processes share this machine's clock: each at its due time, within a sweep.
      for (const run of runs) {
        expect(run.at).toBeGreaterThanOrEqual(dueAt - 100);
        expect(run.at).toBeLessThan(dueAt + 2 * SECOND);
      }
    } finally {
      await early.close();
      await onTime.close();
    }
  });

  it('runs a recurring job once an interval across two processes, and not once per process', async () => {
    const other = await secondConnection(t);
    try {
      const kind = newKind();
      const runs: string[] = [];
      const kinds = { [kind]: { every: 60 * SECOND } };
      const engines = [
        createJobs({ db: t.app.db, dialect: t.app.dialect, clock: t.clock, kinds }),
        createJobs({ db: other.db, dialect: other.dialect, clock: t.clock, kinds }),
      ];
      engines.forEach((engine, i) => {
        engine.every(kind, async () => {
          runs.push(`process ${i}`);
        });
      });
      const sweep = async () => {
        for (const engine of engines) await engine.runDue();
      };
      await sweep();
      expect(runs).toHaveLength(1);
      t.clock.advance(30 * SECOND);
      await sweep();
      expect(runs).toHaveLength(1);
      t.clock.advance(30 * SECOND);
      await sweep();
      await sweep();
      expect(runs).toHaveLength(2);
    } finally {
      await other.close();
    }
  });
});
