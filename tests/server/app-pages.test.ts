import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROUTES } from '../../common/app-routes.js';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { dbLabel, freshDatabase } from './helper.js';

const SHELL = '<!doctype html><title>Alerta</title><div id="root"></div>';

describe(`page addresses: the app's routes answer 200, any other page 404 with the app (${dbLabel})`, () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-pages-'));
    mkdirSync(path.join(dataDir, 'dist'), { recursive: true });
    writeFileSync(path.join(dataDir, 'dist', 'index.html'), SHELL);
    writeFileSync(path.join(dataDir, 'dist', 'alert.html'), SHELL);
    const db = await freshDatabase(dataDir);
    app = await buildApp({
      config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      jwtSecret: 'test-secret-that-is-long-enough-for-hs256-signing',
      database: db.handle,
      logger: false,
      distDir: path.join(dataDir, 'dist'),
    });
    await app.ready();
    close = async () => {
      await app.close();
      await db.handle.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(async () => {
    await close();
  });

  it('serves every app route with 200, with or without a trailing slash, in any case, with a query', async () => {
    const paths = APP_ROUTES.map((route) => route.replace(':uid', 'MQ').replace(':token', 'abc-123'));
    for (const url of [
      ...paths,
      '/reset-password/',
      '/setup/',
      '/Setup',
      '/?checkout=success',
      '/login?next=%2Fsetup',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(SHELL);
    }
  });

  it('answers any other page address with 404 and the app, which shows its not-found page', async () => {
    for (const url of ['/no-such-page', '/setup/more', '/reset-password-confirm/only-uid', '/pricing/x/y']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toBe(SHELL);
    }
    const head = await app.inject({ method: 'HEAD', url: '/no-such-page' });
    expect(head.statusCode).toBe(404);
    // API paths and files keep their JSON 404.
    for (const url of ['/api/nothing/', '/missing.js']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ detail: 'Not found.', code: 'not_found' });
    }
  });
});
