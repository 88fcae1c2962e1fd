import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, loggerOptions } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { ManualClock } from '../../server/lib/clock.js';
import { NEW_PASSWORD, PASSWORD } from './accounts-helpers.js';
import { dbLabel, freshDatabase } from './helper.js';

/** The app with its real request logging at trace level, captured in memory. */
describe(`accounts: secrets stay out of the logs (${dbLabel})`, () => {
  const lines: string[] = [];
  let app: FastifyInstance;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-logs-'));
    const { handle, drop } = await freshDatabase(dataDir);
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    app = await buildApp({
      config: loadConfig({ DATA_DIR: dataDir, APP_URL: 'http://alerta.test', LOG_LEVEL: 'trace' }),
      jwtSecret: 'test-secret-that-is-long-enough-for-hs256-signing',
      database: handle,
      clock: new ManualClock(Date.now()),
      logger: { ...(loggerOptions('trace') as object), stream },
      distDir: path.join(dataDir, 'no-dist'),
    });
    await app.ready();
    cleanup = async () => {
      await app.close();
      await handle.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => {
    await cleanup();
  });

  it('logs requests without passwords, verification keys, reset tokens, JWTs or links', async () => {
    const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });
    await post('/api/users/registration/', {
      username: 'quiet',
      email: 'quiet@example.com',
      password1: PASSWORD,
      password2: PASSWORD,
      accept_terms: true,
    });
    const verifyLink = app.outbox.emails[0]!.text.match(/https?:\/\/\S+/)![0];
    const key = verifyLink.split('/').at(-2)!;
    await app.inject({ method: 'GET', url: new URL(verifyLink).pathname });
    const tokens = (await post('/api/users/auth/login/', { username: 'quiet', password: PASSWORD })).json();
    await post('/api/users/auth/login/', { username: 'quiet', password: 'Wrong-Pass-99' });
    await post('/api/users/auth/refresh/', { refresh: tokens.refresh });
    await post('/api/users/reset-password/', { email: 'quiet@example.com' });
    const resetLink = app.outbox.emails[0]!.text.match(/https?:\/\/\S+/)![0];
    const [, , uid, token] = new URL(resetLink).pathname.split('/');
    const confirmed = await post('/api/users/reset-password-confirm/', {
      uid,
      token,
      new_password1: NEW_PASSWORD,
      new_password2: NEW_PASSWORD,
    });

    expect(confirmed.statusCode).toBe(200);

    const log = lines.join('');
    expect(log.match(/"msg":"incoming request"/g)).toHaveLength(7);
    expect(log).toContain('"url":"/api/users/verify-email/…/"');
    for (const secret of [
      PASSWORD,
      NEW_PASSWORD,
      'Wrong-Pass-99',
      key,
      token!,
      tokens.access,
      tokens.refresh,
      resetLink,
    ]) {
      expect(log).not.toContain(secret);
    }
  });
});
