import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROUTES, PRERENDERED_ROUTES, prerenderedFile } from '../../common/app-routes.js';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { dbLabel, freshDatabase } from './helper.js';

const SHELL = '<!doctype html><title>Alerta</title><div id="root"></div>';

/** A built app in a new folder: `index.html`, `alert.html` and `drawn` (paths under it) as given. */
async function appServing(drawn: Record<string, string> = {}, settings: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-pages-'));
  mkdirSync(path.join(dataDir, 'dist', 'pages'), { recursive: true });
  writeFileSync(path.join(dataDir, 'dist', 'index.html'), SHELL);
  writeFileSync(path.join(dataDir, 'dist', 'alert.html'), SHELL);
  for (const [file, html] of Object.entries(drawn)) writeFileSync(path.join(dataDir, 'dist', file), html);
  const db = await freshDatabase(dataDir);
  const app = await buildApp({
    config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...settings }),
    jwtSecret: 'test-secret-that-is-long-enough-for-hs256-signing',
    database: db.handle,
    logger: false,
    distDir: path.join(dataDir, 'dist'),
  });
  await app.ready();
  const close = async () => {
    await app.close();
    await db.handle.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { app, close };
}

describe(`page addresses: the app's routes answer 200, any other page 404 with the app (${dbLabel})`, () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await appServing());
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

const drawnPage = (route: string, language: string) => `<!doctype html><title>${route} ${language}</title>`;
/** Every drawn page but /privacy's: a build without a page's copies serves the app for it. */
const DRAWN = Object.fromEntries(
  PRERENDERED_ROUTES.filter((route) => route !== '/privacy').flatMap((route) =>
    ['pt', 'en'].map((language) => [prerenderedFile(route, language), drawnPage(route, language)]),
  ),
);

describe(`the pages the build drew: sent in the visitor's language (${dbLabel})`, () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await appServing(DRAWN));
  });
  afterAll(async () => {
    await close();
  });

  it('sends the Portuguese copy by default and the English one to a visitor whose language cookie says so', async () => {
    for (const route of PRERENDERED_ROUTES.filter((route) => route !== '/privacy')) {
      const plain = await app.inject({ method: 'GET', url: route });
      expect(plain.statusCode, route).toBe(200);
      expect(plain.body).toBe(drawnPage(route, 'pt'));
      expect(plain.headers['content-type']).toMatch(/^text\/html/);
      expect(plain.headers['cache-control']).toBe('no-cache');
      // A cache in between keeps the languages apart.
      expect(plain.headers.vary).toBe('cookie, accept-encoding');
      const english = await app.inject({ method: 'GET', url: route, headers: { cookie: 'other=1; lang=en' } });
      expect(english.body).toBe(drawnPage(route, 'en'));
      // Any other value, those naming an object's own properties too, is the default language.
      for (const cookie of ['lang=xx', 'lang=constructor', 'lang=__proto__', 'lang=toString', 'lang=']) {
        const other = await app.inject({ method: 'GET', url: route, headers: { cookie } });
        expect(other.statusCode, cookie).toBe(200);
        expect(other.body, cookie).toBe(drawnPage(route, 'pt'));
      }
    }
  });

  it('sends the app itself for an address with a query, another spelling, or a page not drawn', async () => {
    for (const url of ['/pricing?plan=premium', '/login?next=%2Fsetup', '/pricing/', '/Login', '/privacy', '/setup']) {
      const res = await app.inject({ method: 'GET', url, headers: { cookie: 'lang=en' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(SHELL);
    }
  });
});

describe(`the pricing page drawn with the default terms (${dbLabel})`, () => {
  it('is not sent by a server set to other prices: the app draws the page with them', async () => {
    const { app, close } = await appServing(DRAWN, { BASIC_PRICE_EUR: '4' });
    try {
      const pricing = await app.inject({ method: 'GET', url: '/pricing' });
      expect(pricing.statusCode).toBe(200);
      expect(pricing.body).toBe(SHELL);
      const login = await app.inject({ method: 'GET', url: '/login' });
      expect(login.body).toBe(drawnPage('/login', 'pt'));
    } finally {
      await close();
    }
  });
});
