import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { redactUrl } from '../../server/lib/redact.js';
import { createUser, dbLabel, OUTBOX_KEY, outboxJsonPath, suiteApp } from './helper.js';

/** Test-only routes: one authenticated, one that parses a JSON body. */
function testRoutes(app: FastifyInstance) {
  app.get('/api/test-only/whoami', { onRequest: app.authenticate }, async (request) => ({
    username: request.user.username,
  }));
  app.post('/api/test-only/echo', async (request) => ({ body: request.body }));
}

describe(`foundation (${dbLabel})`, () => {
  const t = suiteApp({}, testRoutes);
  /** Posts a raw body of the given content type to the echo route. */
  const echo = (contentType: string, payload: string) =>
    t.app.inject({ method: 'POST', url: '/api/test-only/echo', headers: { 'content-type': contentType }, payload });

  it('answers health with the database state and version', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', db: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/nope/' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not found.', code: 'not_found' });
  });

  it('sends security headers with a CSP that allows no inline script', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toContain("script-src 'self' 'unsafe-inline'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('rejects malformed JSON with a clear 400', async () => {
    const res = await echo('application/json', '{"a":');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'Malformed JSON body.', code: 'parse_error' });
  });

  it('rejects bodies over the size limit with 413 and unknown content types with 415', async () => {
    const big = await echo('application/json', JSON.stringify({ a: 'x'.repeat(100_000) }));
    expect(big.statusCode).toBe(413);
    expect(big.json().code).toBe('payload_too_large');
    const xml = await echo('application/xml', '<a/>');
    expect(xml.statusCode).toBe(415);
    expect(xml.json().code).toBe('unsupported_media_type');
  });

  it('rejects requests without a valid bearer token on authenticated routes', async () => {
    const anon = await t.app.inject({ method: 'GET', url: '/api/test-only/whoami' });
    expect(anon.statusCode).toBe(401);
  });

  it('serves the dev outbox to loopback only, with its key', async () => {
    t.app.outbox.addEmail({ to: 'a@example.com', subject: 'Hi', text: 'x', html: '<p>x</p>', sent_at: 'now' });
    const local = await t.app.inject({ method: 'GET', url: outboxJsonPath, remoteAddress: '127.0.0.1' });
    expect(local.statusCode).toBe(200);
    expect(local.json().emails[0]).toMatchObject({ to: 'a@example.com', subject: 'Hi' });
    const remote = await t.app.inject({ method: 'GET', url: outboxJsonPath, remoteAddress: '203.0.113.9' });
    expect(remote.statusCode).toBe(404);
    const page = await t.app.inject({
      method: 'GET',
      url: `/dev/outbox?key=${OUTBOX_KEY}`,
      remoteAddress: '127.0.0.1',
    });
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Hi');
  });
});

describe(`authentication hook (${dbLabel})`, () => {
  const t = suiteApp({}, testRoutes);

  it('accepts a fresh access token and rejects it after 15 minutes', async () => {
    const { headers, user } = await createUser(t.app);
    const ok = await t.app.inject({ method: 'GET', url: '/api/test-only/whoami', headers });
    expect(ok.json()).toEqual({ username: user.username });
    t.clock.advance(15 * 60 * 1000 + 1000);
    const expired = await t.app.inject({ method: 'GET', url: '/api/test-only/whoami', headers });
    expect(expired.statusCode).toBe(401);
  });

  it('rejects tokens of a revoked session and of a deleted user at once', async () => {
    const a = await createUser(t.app);
    await t.app.db.updateTable('sessions').set({ revoked_at: t.clock.now() }).where('id', '=', a.sessionId).execute();
    expect((await t.app.inject({ method: 'GET', url: '/api/test-only/whoami', headers: a.headers })).statusCode).toBe(
      401,
    );
    const b = await createUser(t.app);
    await t.app.db.deleteFrom('users').where('id', '=', b.user.id).execute();
    expect((await t.app.inject({ method: 'GET', url: '/api/test-only/whoami', headers: b.headers })).statusCode).toBe(
      401,
    );
  });

  it('rejects a token signed with another secret', async () => {
    const forged =
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJhY2Nlc3MiLCJzaWQiOiJ4Iiwic3ViIjoieCIsImlzcyI6ImFsZXJ0YSJ9.' +
      'bm90LWEtcmVhbC1zaWduYXR1cmUtYXQtYWxsLWZvci10ZXN0cw';
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/test-only/whoami',
      headers: { authorization: `Bearer ${forged}` },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('configuration', () => {
  it('names the variable when PORT is not a number', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('names the variable when DATABASE_URL is malformed, without echoing it', () => {
    let message = '';
    try {
      loadConfig({ DATABASE_URL: 'not a url with secret' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid configuration: DATABASE_URL /);
    expect(message).not.toContain('secret');
  });

  /** The message loadConfig refuses this environment with. */
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('the configuration was accepted');
  };

  it('says when a password holding "/", "?" or "#" cut DATABASE_URL short, and how to pass it, without echoing it', () => {
    // As `openssl rand -base64 24` makes them: some hold "/", and some of those read as a port.
    for (const password of ['Kq9/xSecret+w=', '5432/Secret', 'ab?Secret', 'a#Secret']) {
      const message = refusal({ DATABASE_URL: `postgres://alerta:${password}@postgres:5432/alerta` });
      expect(message).toMatch(
        /^Invalid configuration: DATABASE_URL has a user name or password holding "\/", "\?" or "#"/,
      );
      expect(message).toContain('percent-encode it ("/" as %2F');
      expect(message).toContain('set PGPASSWORD');
      expect(message).not.toContain('Secret');
      // Percent-encoded it is read whole; or it stays out of the URL, for PGPASSWORD.
      const encoded = `postgres://alerta:${encodeURIComponent(password)}@postgres:5432/alerta`;
      expect(loadConfig({ DATABASE_URL: encoded }).DATABASE_URL).toBe(encoded);
    }
    expect(loadConfig({ DATABASE_URL: 'postgres://alerta@postgres:5432/alerta' }).DATABASE_URL).toContain('alerta@');
  });

  it('names the scheme a URL setting must start with, and the one it has', () => {
    expect(refusal({ DATABASE_URL: 'mysql://alerta@db/alerta' })).toBe(
      'Invalid configuration: DATABASE_URL must be a URL starting with postgres:// or postgresql://, not mysql://',
    );
    expect(refusal({ REDIS_URL: 'redis://:pa/ss@redis:6379' })).toMatch(
      /^Invalid configuration: REDIS_URL has a user name or password holding/,
    );
    expect(refusal({ APP_URL: 'https://exa mple.org' })).toMatch(
      /^Invalid configuration: APP_URL is not a URL that can be read/,
    );
  });

  it('gives the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      HOST: '0.0.0.0',
      APP_URL: 'http://localhost:8080',
      DATA_DIR: './data',
      BASIC_CONTACT_LIMIT: 3,
      PREMIUM_CONTACT_LIMIT: 10,
      TRIAL_DAYS: 3,
      LOG_LEVEL: 'info',
    });
  });
});

describe('log redaction', () => {
  it('masks secret-looking path segments and drops the query', () => {
    expect(redactUrl('/api/emergency/public/AbCdEfGhIjKlMnOpQrSt_123/alerts/?x=1')).toBe(
      '/api/emergency/public/…/alerts/',
    );
    expect(redactUrl('/api/users/me/')).toBe('/api/users/me/');
    expect(redactUrl('/api/users/reset-password-confirm/')).toBe('/api/users/reset-password-confirm/');
    expect(redactUrl('/api/users/verify-email/k3y-0f-the-verification-link/')).toBe('/api/users/verify-email/…/');
  });
});
