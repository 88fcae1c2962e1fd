import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJobs, enqueue, JOB_KINDS, jobKindNames } from '../../server/jobs/index.js';
import { dbLabel, suiteApp } from './helper.js';
import { secondServer } from './second-process.js';

const SERVER = path.resolve(import.meta.dirname, '../../server');

// The registry of kinds (server/jobs/kinds.ts): every kind the server runs, listed once; a
// handler for a kind not listed, or registered twice, or a listed kind without one, refuses to
// start, naming the kind; rows of a kind no handler knows are said, at start and in /metrics.
describe(`the registry of job kinds (${dbLabel})`, () => {
  const t = suiteApp();
  const engine = (kinds: Parameters<typeof createJobs>[0]['kinds']) =>
    createJobs({ db: t.app.db, dialect: t.app.dialect, clock: t.clock, kinds });

  it('refuses a handler for a kind it does not list, or registered twice, naming the kind', () => {
    const jobs = engine({ listed: {} });
    expect(() => jobs.handle('unlisted', async () => {})).toThrow(/job kind unlisted is not in the registry/);
    jobs.handle('listed', async () => {});
    expect(() => jobs.handle('listed', async () => {})).toThrow('job kind listed registered twice');
  });

  it('refuses a hook its kind does not name, and a named hook left out', () => {
    const jobs = engine({ plain: {}, parking: { parked: 'its rows marked' } });
    expect(() => jobs.handle('plain', async () => {}, { parked: async () => {} })).toThrow(
      'job kind plain: its parked hook is not in its settings',
    );
    expect(() => jobs.handle('parking', async () => {})).toThrow('job kind parking: its parked hook is missing');
  });

  it('refuses to be ready while a listed kind has no handler, but for one registered in some settings only', async () => {
    const jobs = engine({
      handled: {},
      forgotten: {},
      'also-forgotten': {},
      sometimes: { onlyWhen: 'a setting says so' },
    });
    jobs.handle('handled', async () => {});
    await expect(jobs.ready()).rejects.toThrow('no handler registered for the job kinds forgotten, also-forgotten');
    jobs.handle('forgotten', async () => {});
    jobs.handle('also-forgotten', async () => {});
    await expect(jobs.ready()).resolves.toBeUndefined();
  });

  it("takes the server's kinds only, by type", async () => {
    const job = { subject: 'x', dueAt: t.clock.now() + 3_600_000, now: t.clock.now() };
    // @ts-expect-error: a kind the registry does not list.
    await enqueue(t.app.db, { kind: 'no-such-kind', ...job });
    await enqueue(t.app.db, { kind: 'checkin', ...job });
    await t.app.db.deleteFrom('jobs').where('subject', '=', 'x').execute();
  });

  it("names each kind's handler module, which names the kind", () => {
    for (const kind of jobKindNames) {
      const file = path.join(SERVER, JOB_KINDS[kind].module);
      expect(existsSync(file), `${kind}: ${file}`).toBe(true);
      expect(readFileSync(file, 'utf8'), `${kind} in ${file}`).toMatch(new RegExp(`['\`]${kind}['\`]`));
    }
  });

  it('logs at error, as a server starts, each kind of the waiting jobs that no handler knows', async () => {
    const now = t.clock.now();
    for (const subject of ['a', 'b']) {
      await enqueue<string>(t.app.db, { kind: 'retired-kind', subject, dueAt: now, now });
    }
    const lines: string[] = [];
    const server = await secondServer(t, t.clock, { logLines: lines });
    try {
      await server.app.ready();
      const said = lines.map((line) => JSON.parse(line)).filter((entry) => entry.kind === 'retired-kind');
      expect(said).toEqual([
        expect.objectContaining({
          level: 50,
          jobs: 2,
          msg: 'jobs of a kind no handler here knows: they wait and never run',
        }),
      ]);
    } finally {
      await server.close();
      await t.app.db.deleteFrom('jobs').where('kind', '=', 'retired-kind').execute();
    }
  });
});
