import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveJwtSecret } from '../../server/config.js';
import { openDatabase } from '../../server/db/index.js';
import { SECRET_PATH_MAX_PER_MINUTE } from '../../server/plugins/security.js';
import { login, verifiedAccount } from './accounts-helpers.js';
import { alertsOf, lisbonAt, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';
import { sendRealAlert } from './live-fixtures.js';

const mode = (file: string) => statSync(file).mode & 0o777;

describe('a new data directory is private', () => {
  it('creates DATA_DIR 0700 with the database, its journal and the JWT secret 0600', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'alerta-modes-'));
    try {
      const dataDir = path.join(root, 'new', 'data');
      const handle = openDatabase({ dataDir });
      await sql`create table t (x integer)`.execute(handle.db);
      await sql`insert into t values (1)`.execute(handle.db);
      expect(mode(path.join(root, 'new'))).toBe(0o700);
      expect(mode(dataDir)).toBe(0o700);
      for (const file of ['alerta.sqlite', 'alerta.sqlite-wal', 'alerta.sqlite-shm']) {
        expect(existsSync(path.join(dataDir, file)), file).toBe(true);
        expect(mode(path.join(dataDir, file)), file).toBe(0o600);
      }
      await handle.close();

      const other = path.join(root, 'secret-first');
      resolveJwtSecret(loadConfig({ DATA_DIR: other }));
      expect(mode(other)).toBe(0o700);
      expect(mode(path.join(other, 'jwt-secret'))).toBe(0o600);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe(`answers that carry a token are never stored; personal pages never indexed (${dbLabel})`, () => {
  const t = suiteApp({}, undefined, { pages: true });

  it('sends Cache-Control: no-store on login, refresh, /me and every other API answer', async () => {
    const account = await verifiedAccount(t);
    const signedIn = await login(t, account.username);
    expect(signedIn.headers['cache-control']).toBe('no-store');
    const refreshed = await t.app.inject({
      method: 'POST',
      url: '/api/users/auth/refresh/',
      payload: { refresh: signedIn.json().refresh },
    });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.headers['cache-control']).toBe('no-store');
    for (const method of ['GET', 'PATCH'] as const) {
      const me = await t.app.inject({
        method,
        url: '/api/users/me/',
        headers: account.auth,
        ...(method === 'PATCH' ? { payload: { language: 'en' } } : {}),
      });
      expect(me.statusCode).toBe(200);
      expect(me.headers['cache-control'], method).toBe('no-store');
    }
    // Errors too.
    const wrong = await login(t, account.username, 'Wrong-1234');
    expect(wrong.headers['cache-control']).toBe('no-store');
  });

  it('sends X-Robots-Tag: noindex on the emergency, test and live pages and the API', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351965000001']] });
    const alert = await sendRealAlert(t.app, owner.token);
    for (const url of [
      `/public/${owner.token}/`,
      `/test/${owner.token}/`,
      `/public/${owner.token}/manifest.webmanifest`,
      `/a/${alert.public_id}`,
      `/api/emergency/public/${owner.token}/`,
      `/api/live/${alert.public_id}/`,
      '/reset-password-confirm/some-user/some-token',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['x-robots-tag'], url).toBe('noindex');
    }
    // Public pages stay indexable.
    expect((await t.app.inject({ method: 'GET', url: '/pricing' })).headers['x-robots-tag']).toBeUndefined();
  });
});

describe(`one Idempotency-Key, one request; the per-address ceiling on the routed path (${dbLabel})`, () => {
  const t = suiteApp();

  it('answers a reused Idempotency-Key with another body 422, and the same body with the stored alert', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351965000011']] });
    const key = randomUUID();
    const body = { mode: 'real', location: lisbonAt(t.app) };
    const first = await postAlert(t.app, owner.token, body, key);
    expect(first.statusCode).toBe(201);
    expect((await postAlert(t.app, owner.token, body, key)).json().id).toBe(first.json().id);
    for (const other of [
      { mode: 'test', location: null },
      { mode: 'real', location: null, location_error: 'denied' },
      { mode: 'real', location: { ...lisbonAt(t.app), latitude: 40.1 } },
    ]) {
      const res = await postAlert(t.app, owner.token, other, key);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        code: 'idempotency_key_reused',
        detail: 'This Idempotency-Key was already used for a different alert. Use a new key for a new alert.',
      });
    }
    expect(await alertsOf(t.app, owner.user.id)).toHaveLength(1);
  });

  it('counts percent-encoded paths against the same per-address ceiling', async () => {
    const remoteAddress = '192.0.2.200';
    const guess = () => `/api/emergency/%70ublic/${randomBytes(24).toString('base64url')}/`;
    // The router decodes the path: it is the alert API (an unknown token answers 404).
    expect((await t.app.inject({ method: 'GET', url: guess(), remoteAddress: '192.0.2.201' })).statusCode).toBe(404);
    for (let i = 0; i < SECRET_PATH_MAX_PER_MINUTE; i += 1) {
      const res = await t.app.inject({ method: 'GET', url: guess(), remoteAddress });
      expect(res.statusCode, `#${i + 1}`).toBe(404);
    }
    const limited = await t.app.inject({ method: 'GET', url: guess(), remoteAddress });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'throttled' });
    const plain = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${randomBytes(24).toString('base64url')}/`,
      remoteAddress,
    });
    expect(plain.statusCode).toBe(429);
  });
});
