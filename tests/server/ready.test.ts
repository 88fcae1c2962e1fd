import type { KyselyPlugin } from 'kysely';
import { describe, expect, it, vi } from 'vitest';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
// Declared condition: the Redis case needs a Redis (TEST_REDIS_URL); .ci/run always sets it.
if (!REDIS_URL) console.warn('readiness with Redis: not run because TEST_REDIS_URL is not set (.ci/run sets it)');

/** A database whose every query fails while `down` is set, as one that went away would. */
function switchableDatabase() {
  const state = { down: false };
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      if (state.down) throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { state, plugin };
}

const probe = (t: TestApp, url: '/api/ready' | '/api/health') => t.app.inject({ method: 'GET', url });

async function withApp(env: Record<string, string>, run: (t: TestApp) => Promise<void>, plugins: KyselyPlugin[] = []) {
  const t = await buildTestApp(env, undefined, { dbPlugins: plugins });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

describe(`GET /api/ready (${dbLabel})`, () => {
  it('is ready with the database answering and no Redis configured, and 503 while the database fails', async () => {
    const database = switchableDatabase();
    await withApp(
      {},
      async (t) => {
        const ready = await probe(t, '/api/ready');
        expect(ready.statusCode).toBe(200);
        expect(ready.headers['cache-control']).toBe('no-store');
        expect(ready.json()).toEqual({ status: 'ready', db: 'ok', redis: 'off', version: t.app.appVersion });

        database.state.down = true;
        const down = await probe(t, '/api/ready');
        expect(down.statusCode).toBe(503);
        expect(down.json()).toMatchObject({ code: 'unavailable', status: 'unavailable', db: 'unreachable' });

        database.state.down = false;
        expect((await probe(t, '/api/ready')).statusCode).toBe(200);
      },
      [database.plugin],
    );
  });

  it('is not ready while the configured Redis cannot be reached, though the process lives', async () => {
    // Nothing listens on port 1: every connection is refused.
    await withApp({ REDIS_URL: 'redis://127.0.0.1:1' }, async (t) => {
      const ready = await probe(t, '/api/ready');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({
        code: 'unavailable',
        detail: 'Redis cannot be reached.',
        db: 'ok',
        redis: 'unreachable',
      });
      expect((await probe(t, '/api/health')).statusCode).toBe(200);
    });
  });

  it.skipIf(!REDIS_URL)('is ready with the configured Redis answering', async () => {
    await withApp({ REDIS_URL: REDIS_URL! }, async (t) => {
      // Its connection opens at start: ready as soon as it has.
      await vi.waitFor(async () => expect((await probe(t, '/api/ready')).statusCode).toBe(200), {
        timeout: 5_000,
        interval: 50,
      });
      expect((await probe(t, '/api/ready')).json()).toMatchObject({ status: 'ready', db: 'ok', redis: 'ok' });
    });
  });
});
