import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../common/api/errors.js';
import { subscriberWithContacts } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';
import { type RawResponse, rawGet, rawRequest } from './raw-http.js';

/** Past the router's maxParamLength (200): longer than any token or id the API makes. */
const LONG = 'a'.repeat(300);

/** A request of `head` lines (request line first) with `body`, as bytes on the wire. */
const wire = (head: string[], body = '') =>
  `${head.join('\r\n')}\r\nHost: alerta.test\r\nConnection: close\r\n\r\n${body}`;

/** The API's error shape: a detail and a code of the catalogue, nothing of Fastify's own. */
function expectApiError(res: { status: number; body: string }, status: number, code: string) {
  expect(res.status, res.body).toBe(status);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'detail']);
  expect(body.code).toBe(code);
  expect(ERROR_CODES).toContain(body.code);
  expect(body.detail).toEqual(expect.any(String));
  expect(res.body).not.toMatch(/FST_|statusCode|aaaa/);
}

describe(`router and parser errors in the API's shape (${dbLabel})`, () => {
  const t = suiteApp();
  let port = 0;
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  const injected = async (options: InjectOptions): Promise<RawResponse> => {
    const res = await t.app.inject(options);
    return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.body };
  };

  it('answers a path parameter past 200 characters 414 uri_too_long, without echoing it', async () => {
    const res = await rawGet(port, `/api/emergency/public/${LONG}/`);
    expectApiError(res, 414, 'uri_too_long');
    expect(res.headers['cache-control']).toBe('no-store');
    const owner = await subscriberWithContacts(t.app, 'basic', []);
    const remove = await injected({
      method: 'DELETE',
      url: `/api/emergency/contacts/${LONG}/`,
      headers: owner.headers,
    });
    expectApiError(remove, 414, 'uri_too_long');
  });

  it('answers a percent-encoding that does not decode 400 bad_url, in a parameter or anywhere in the path', async () => {
    for (const target of ['/api/emergency/public/%E0%A4%A/', '/api/heal%E0th', '/api/live/%zz/']) {
      const res = await rawGet(port, target);
      expectApiError(res, 400, 'bad_url');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('answers the body parser’s refusals in the same shape', async () => {
    const login = '/api/users/auth/login/';
    const tooLarge = JSON.stringify({ username: 'x'.repeat(70 * 1024), password: 'y' });
    expectApiError(
      await injected({
        method: 'POST',
        url: login,
        headers: { 'content-type': 'application/json' },
        payload: tooLarge,
      }),
      413,
      'payload_too_large',
    );
    for (const type of ['text/xml', 'application/x-www-form-urlencoded', ';;']) {
      expectApiError(
        await injected({ method: 'POST', url: login, headers: { 'content-type': type }, payload: '<a/>' }),
        415,
        'unsupported_media_type',
      );
    }
    // A Content-Length the body does not match.
    expectApiError(
      await injected({
        method: 'POST',
        url: login,
        headers: { 'content-type': 'application/json', 'content-length': '40' },
        payload: '{}',
      }),
      400,
      'parse_error',
    );
  });

  it('answers what Node’s HTTP parser refuses in the same shape, and closes the connection', async () => {
    const post = 'POST /api/users/auth/login/ HTTP/1.1';
    const broken = [
      wire([post, 'Content-Type: application/json', 'Content-Length: abc'], '{}'),
      wire([post, 'Content-Type: application/json', 'Content-Length: 2', 'Transfer-Encoding: chunked'], '0\r\n\r\n'),
      wire([post, 'Content-Type: application/json', 'Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n'),
      wire(['GARBAGE']),
      wire(['GET /api/health HTTP/1.1', 'Bad Header Name: x']),
    ];
    for (const request of broken) {
      const res = await rawRequest(port, request);
      expectApiError(res, 400, 'bad_request');
      expect(res.headers.connection).toBe('close');
    }
    const huge = await rawRequest(port, wire(['GET /api/health HTTP/1.1', `X-Big: ${'b'.repeat(20_000)}`]));
    expectApiError(huge, 431, 'headers_too_large');
  });

  it('still answers unknown routes and methods 404 not_found', async () => {
    expectApiError(await injected({ method: 'GET', url: '/api/nothing/' }), 404, 'not_found');
    expectApiError(await injected({ method: 'PROPFIND', url: '/api/health' }), 404, 'not_found');
  });
});
