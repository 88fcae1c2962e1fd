import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';
import { dbLabel, freshDatabase } from './helper.js';

/** A tiny built web app: the shell, the emergency page and one hashed asset. */
function fakeDist(dir: string): void {
  mkdirSync(path.join(dir, 'assets'), { recursive: true });
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Alerta</title><div id="root"></div>');
  writeFileSync(path.join(dir, 'alert.html'), '<!doctype html><title>Alerta</title><div id="alert"></div>');
  writeFileSync(path.join(dir, 'assets', 'app-abc123.js'), 'console.log(1)');
}

async function appWith(env: Record<string, string>, dataDir: string) {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const db = await freshDatabase(dataDir);
  const app = await buildApp({
    config,
    jwtSecret: 'test-secret-that-is-long-enough-for-hs256-signing',
    database: db.handle,
    logger: false,
    distDir: path.join(dataDir, 'dist'),
  });
  await app.ready();
  return {
    app,
    async close() {
      await app.close();
      await db.handle.close();
      await db.drop();
    },
  };
}

function expectSecurityHeaders(res: LightMyRequestResponse): void {
  const csp = String(res.headers['content-security-policy']);
  const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src'));
  expect(scriptSrc?.trim()).toBe("script-src 'self'");
  expect(csp).not.toMatch(/unsafe-eval|'nonce-|'sha256-/);
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).toContain("base-uri 'self'");
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  expect(res.headers['x-powered-by']).toBeUndefined();
}

/** Every kind of answer the server gives: API JSON, API errors, pages, assets, manifests. */
const PATHS = [
  '/api/health',
  '/api/nope/',
  '/api/emergency/contacts/',
  '/',
  '/setup',
  '/public/abcdefghijklmnopqrstuvwx/',
  '/test/abcdefghijklmnopqrstuvwx/',
  '/assets/app-abc123.js',
];

describe(`security headers (${dbLabel})`, () => {
  let dataDir: string;
  let plain: { app: FastifyInstance; close(): Promise<void> };
  let proxied: { app: FastifyInstance; close(): Promise<void> };
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-headers-'));
    fakeDist(path.join(dataDir, 'dist'));
    plain = await appWith({}, dataDir);
    proxied = await appWith({ TRUST_PROXY: '1', HOST: '127.0.0.1' }, dataDir);
  });
  afterAll(async () => {
    await plain?.close();
    await proxied?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(PATHS)(
    'sends CSP without inline script, frame-ancestors none, nosniff and no-referrer on %s',
    async (url) => {
      const res = await plain.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBeLessThan(500);
      expectSecurityHeaders(res);
    },
  );

  it('serves the pages themselves with no inline script for the CSP to allow', async () => {
    const page = await plain.app.inject({ method: 'GET', url: '/public/abcdefghijklmnopqrstuvwx/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const shell = await plain.app.inject({ method: 'GET', url: '/setup' });
    expect(shell.statusCode).toBe(200);
    expect(shell.body).toContain('id="root"');
  });

  it('never sends HSTS over plain HTTP, even when a client claims https without a trusted proxy', async () => {
    for (const url of PATHS) {
      const bare = await plain.app.inject({ method: 'GET', url });
      expect(bare.headers['strict-transport-security']).toBeUndefined();
      const claimed = await plain.app.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'https' } });
      expect(claimed.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('sends HSTS when TRUST_PROXY=1 and the proxy says the request came over TLS, on API and pages', async () => {
    for (const url of PATHS) {
      const tls = await proxied.app.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'https' } });
      expect(tls.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expectSecurityHeaders(tls);
      const http = await proxied.app.inject({ method: 'GET', url, headers: { 'x-forwarded-proto': 'http' } });
      expect(http.headers['strict-transport-security']).toBeUndefined();
      const none = await proxied.app.inject({ method: 'GET', url });
      expect(none.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('keeps the headers on error answers: 404, 413 and 415', async () => {
    const big = await plain.app.inject({
      method: 'POST',
      url: '/api/emergency/contacts/',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(70_000) }),
    });
    expect([401, 413]).toContain(big.statusCode);
    expectSecurityHeaders(big);
    const missing = await plain.app.inject({ method: 'GET', url: '/assets/missing.js' });
    expect(missing.statusCode).toBe(404);
    expectSecurityHeaders(missing);
  });
});
