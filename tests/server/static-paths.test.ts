import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { rawGet } from './raw-http.js';

// What must never leave the server through the static files: a file beside dist/, the
// session secret and the database in the data directory, and the keyed dev outbox.
const OUTSIDE = 'outside-dist-secret-7f3a';

describe(`static files: nothing outside dist/ and no guard bypassed, whatever the path's spelling (${dbLabel})`, () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await buildTestApp({}, undefined, { pages: true, distFiles: { 'assets/app-1a2b.js': 'console.log("app")' } });
    writeFileSync(path.join(t.dataDir, 'secret.txt'), OUTSIDE);
    writeFileSync(path.join(t.dataDir, 'jwt-secret'), OUTSIDE);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await t.close();
  });

  // The shapes of the advisories fixed in @fastify/static 10.1.3 (GHSA-83w8-p2f5-377r,
  // GHSA-423g-23ch-w7c6 and the others): encoded dot segments and separators, `.`, `//`, `\`.
  const escapes = [
    '/assets/..%2f..%2fsecret.txt',
    '/assets/..%2F..%2Fjwt-secret',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/assets/..%5c..%5csecret.txt',
    '/assets/..\\..\\secret.txt',
    '/assets/....//....//secret.txt',
    '//secret.txt',
    '//../secret.txt',
    '/./../secret.txt',
    '/assets/./../../jwt-secret',
    '/assets/%252e%252e/%252e%252e/secret.txt',
    '/assets/..%00/secret.txt',
  ];

  it.each(escapes)('%s serves nothing from outside dist/', async (target) => {
    const res = await rawGet(port, target);
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(500);
    expect(res.body).not.toContain(OUTSIDE);
  });

  it.each([
    '/dev/./outbox.json',
    '//dev/outbox.json',
    '/%2e/dev/outbox.json',
    '/assets/../dev/outbox.json',
    '/assets/..%2f..%2fdev/outbox.json',
    '/public/../dev/outbox.json',
    '/dev/outbox.json/.',
    '/dev%2foutbox.json',
  ])('%s does not reach the keyed dev outbox without its key', async (target) => {
    const res = await rawGet(port, target);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('"emails"');
  });

  it('still serves what is meant to be served, in the spellings a browser sends', async () => {
    const asset = await rawGet(port, '/assets/app-1a2b.js');
    expect(asset.status).toBe(200);
    expect(asset.body).toContain('console.log("app")');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // A dot segment in a page address lands on the same page, with its own caching.
    for (const target of ['/public/./abc/', '/public/abc/']) {
      const page = await rawGet(port, target);
      expect(page.status, target).toBe(200);
      expect(page.headers['cache-control'], target).toBe('no-cache');
      expect(page.body, target).toContain('<div id="root">');
    }
  });
});
