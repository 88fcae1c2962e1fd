import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carriesForwarding } from '../../server/features/dev/outbox-routes.js';
import { normaliseTarget } from '../../server/lib/request-target.js';
import { MINUTE } from '../../server/lib/time.js';
import { SECRET_PATH_MAX_PER_MINUTE } from '../../server/plugins/security.js';
import { buildTestApp, createUser, dbLabel, moveTime, OUTBOX_KEY, suiteApp, type TestApp } from './helper.js';
import { rawGet } from './raw-http.js';

const token = () => randomBytes(18).toString('base64url');

describe('request targets: one spelling (unit)', () => {
  it.each([
    ['http://alerta.test/api/emergency/public/abc/', '/api/emergency/public/abc/'],
    ['HTTPS://alerta.test:8443/public/abc/?x=1', '/public/abc/?x=1'],
    ['http://alerta.test', '/'],
    ['http://alerta.test?x=1', '/?x=1'],
    ['/api/./emergency/public/../public/abc/', '/api/emergency/public/abc/'],
    ['/api/emergency/%70ublic/abc/', '/api/emergency/public/abc/'],
    ['/api/emergency/public/%2e%2E/public/abc/', '/api/emergency/public/abc/'],
    ['/a/b/..', '/a/'],
    ['/a/.', '/a/'],
    ['/../../api/', '/api/'],
    ['/a//b/../c', '/a//c'],
    // Escapes that are not unreserved characters stay as sent: %2F is never a separator.
    ['/api/emergency%2Fpublic/abc/', '/api/emergency%2Fpublic/abc/'],
    ['/api/x/a%2F..%2Fb/', '/api/x/a%2F..%2Fb/'],
    ['/api/x/%25%2e/', '/api/x/%25./'],
    ['/api/x/?next=/../a%70', '/api/x/?next=/../a%70'],
    ['*', '*'],
    ['alerta.test:443', 'alerta.test:443'],
  ])('%s → %s', (target, expected) => {
    expect(normaliseTarget(target)).toBe(expected);
  });
});

describe(`request targets: the same ceiling, no-store and noindex whatever form arrives (${dbLabel})`, () => {
  const t = suiteApp();
  let port: number;
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });

  /** The shapes of one secret-path request that the router sends to the same route, each tried from its own loopback address. */
  const SHAPES: [string, (path: string) => string, string][] = [
    ['absolute-form', (p) => `http://alerta.test${p}`, '127.0.0.11'],
    ['dot segments', (p) => p.replace('/api/emergency/public/', '/api/./emergency/public/../public/'), '127.0.0.12'],
    [
      'absolute-form with dot segments',
      (p) => `http://alerta.test${p.replace('/emergency/', '/x/../emergency/./')}`,
      '127.0.0.13',
    ],
    ['escaped letters', (p) => p.replace('/public/', '/%70ublic/'), '127.0.0.14'],
  ];

  it.each(SHAPES)('%s: answered as the plain path, with no-store and noindex', async (_name, shape) => {
    const path = `/api/emergency/public/${token()}/`;
    const plain = await rawGet(port, path);
    const odd = await rawGet(port, shape(path));
    expect(odd.status).toBe(plain.status);
    expect(JSON.parse(odd.body)).toEqual(JSON.parse(plain.body));
    expect(odd.headers['cache-control']).toBe('no-store');
    expect(odd.headers['x-robots-tag']).toBe('noindex');
    // The alert e-mail's "not me" page and the emergency page too.
    for (const secret of [`/api/users/not-me/${token()}/`, `/public/${token()}/`]) {
      const res = await rawGet(port, `http://alerta.test${secret}`);
      expect(res.headers['x-robots-tag'], secret).toBe('noindex');
    }
  });

  it.each(SHAPES)(
    '%s: counted in the per-address ceiling; the owner still gets through',
    async (_name, shape, from) => {
      const owner = await createUser(t.app);
      const plain = () =>
        t.app.inject({ method: 'GET', url: `/api/emergency/public/${token()}/`, remoteAddress: from });
      for (let i = 0; i < SECRET_PATH_MAX_PER_MINUTE - 1; i += 1) expect((await plain()).statusCode).not.toBe(429);
      // The last one allowed, in the odd shape: it must count, so the next plain one is refused.
      expect((await rawGet(port, shape(`/api/emergency/public/${token()}/`), from)).status).not.toBe(429);
      expect((await plain()).statusCode).toBe(429);
      // And over the ceiling, the odd shape is refused like the plain one.
      const odd = await rawGet(port, shape(`/api/emergency/public/${token()}/`), from);
      expect(odd.status).toBe(429);
      expect(odd.headers['retry-after']).toBeDefined();
      // The owner's ordinary requests from the same address, right after.
      const me = await t.app.inject({
        method: 'GET',
        url: '/api/users/me/',
        headers: owner.headers,
        remoteAddress: from,
      });
      expect(me.statusCode).toBe(200);
      expect((await rawGet(port, '/api/config/', from)).status).toBe(200);
      // A minute later the secret paths answer this address again, in any shape.
      moveTime(t, MINUTE);
      expect((await rawGet(port, shape(`/api/emergency/public/${token()}/`), from)).status).not.toBe(429);
    },
  );

  it('keeps an escaped separator inside its segment: %2F reaches the parameter, never another route', async () => {
    const id = token();
    const inside = await rawGet(port, `/api/emergency/public/${id}%2Fx/`);
    const plain = await rawGet(port, `/api/emergency/public/${id}/`);
    // Routed to the token route (an unknown token), not to "not found".
    expect(inside.status).toBe(plain.status);
    expect(JSON.parse(inside.body).code).toBe(JSON.parse(plain.body).code);
    const across = await rawGet(port, `/api/emergency%2Fpublic/${id}/`);
    expect(across.status).toBe(404);
    expect(JSON.parse(across.body).code).toBe('not_found');
  });
});

describe(`dev outbox: behind its key (${dbLabel})`, () => {
  const t = suiteApp();
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, remoteAddress: '127.0.0.1', headers });
  const isNotFound = (res: Awaited<ReturnType<typeof get>>) =>
    res.statusCode === 404 && res.json().code === 'not_found';

  beforeAll(() => {
    t.app.outbox.addEmail({
      to: 'owner@example.com',
      subject: 'Reset',
      text: 'http://alerta.test/reset-password-confirm/secret-reset-link',
      html: '<p>x</p>',
      sent_at: 'now',
    });
  });

  it('answers 404 without the key or with another, 200 with it', async () => {
    for (const file of ['outbox.json', 'outbox']) {
      expect(isNotFound(await get(`/dev/${file}`)), file).toBe(true);
      expect(isNotFound(await get(`/dev/${file}?key=`)), file).toBe(true);
      expect(isNotFound(await get(`/dev/${file}?key=${OUTBOX_KEY.slice(0, -1)}x`)), file).toBe(true);
      expect(isNotFound(await get(`/dev/${file}?key=${OUTBOX_KEY}x`)), file).toBe(true);
      expect(isNotFound(await get(`/dev/${file}?key=${OUTBOX_KEY}&key=${OUTBOX_KEY}`)), file).toBe(true);
      const ok = await get(`/dev/${file}?key=${OUTBOX_KEY}`);
      expect(ok.statusCode, file).toBe(200);
      expect(ok.body).toContain('secret-reset-link');
      expect(ok.headers['cache-control']).toBe('no-store');
    }
  });

  it("the page's own links carry the key", async () => {
    const page = await get(`/dev/outbox?key=${OUTBOX_KEY}`);
    const own = [...page.body.matchAll(/href="(\/dev\/[^"]*)"/g)].map((m) => m[1] ?? '');
    expect(own.length).toBeGreaterThan(0);
    for (const href of own) {
      expect(href).toContain(`key=${OUTBOX_KEY}`);
      expect((await get(href.replaceAll('&amp;', '&'))).statusCode, href).toBe(200);
    }
  });

  it('answers 404 to a request through any proxy, even with the key', async () => {
    const proxies: Record<string, string>[] = [
      { 'x-real-ip': '203.0.113.9' },
      { via: '1.1 nginx' },
      { forwarded: 'for=203.0.113.9' },
      { 'cf-connecting-ip': '203.0.113.9' },
      { 'true-client-ip': '203.0.113.9' },
      { 'x-forwarded-for': '203.0.113.9' },
      { 'x-forwarded-host': 'alerta.example' },
      // Spellings of proxies of their own: ingress-nginx, WebLogic's plug-in, and a bare Client-IP.
      { 'x-original-forwarded-for': '203.0.113.9' },
      { 'x-proxyuser-ip': '203.0.113.9' },
      { 'client-ip': '203.0.113.9' },
      { 'x-cluster-client-ip': '203.0.113.9' },
      { 'fastly-client-ip': '203.0.113.9' },
      { 'x-originating-ip': '203.0.113.9' },
      { 'x-client-ip': '203.0.113.9' },
      { x_forwarded_for: '203.0.113.9' },
      { 'x-via': '1.1 cache' },
    ];
    for (const headers of proxies) {
      expect(isNotFound(await get(`/dev/outbox.json?key=${OUTBOX_KEY}`, headers)), JSON.stringify(headers)).toBe(true);
      expect(isNotFound(await get(`/dev/outbox?key=${OUTBOX_KEY}`, headers)), JSON.stringify(headers)).toBe(true);
    }
    // The operator's own request, right after, from the same address.
    expect((await get(`/dev/outbox.json?key=${OUTBOX_KEY}`)).statusCode).toBe(200);
  });

  it("takes a browser's own headers for what they are: a plain loopback request with all of them passes", async () => {
    const browser = {
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
      accept: 'text/html,application/xhtml+xml',
      'accept-language': 'pt-PT,pt;q=0.9,en;q=0.8',
      'accept-encoding': 'gzip, deflate, br',
      'cache-control': 'no-cache',
      pragma: 'no-cache',
      dnt: '1',
      'sec-ch-ua': '"Chromium";v="131"',
      'sec-ch-ua-platform': '"Linux"',
      'sec-fetch-site': 'none',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
      'upgrade-insecure-requests': '1',
      referer: 'http://localhost:8080/',
      cookie: 'alerta_lang=pt',
    };
    expect(carriesForwarding(browser)).toBe(false);
    expect((await get(`/dev/outbox?key=${OUTBOX_KEY}`, browser)).statusCode).toBe(200);
    for (const name of [
      'X-Original-Forwarded-For',
      'X-ProxyUser-Ip',
      'Client-IP',
      'Via',
      'CF-Connecting-IP',
      'X-Real-IP',
    ]) {
      expect(carriesForwarding({ ...browser, [name]: '203.0.113.9' }), name).toBe(true);
    }
    // "via" inside another word is not Via.
    expect(carriesForwarding({ 'x-aviator': '1', 'x-trivia': '1' })).toBe(false);
  });
});

describe(`dev outbox: a random key each start, none in production (${dbLabel})`, () => {
  const apps: TestApp[] = [];
  const appWith = async (env: Record<string, string>) => {
    const app = await buildTestApp(env);
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('without DEV_OUTBOX_KEY, makes a new long random key at each start', async () => {
    const first = await appWith({ DEV_OUTBOX_KEY: '' });
    const second = await appWith({ DEV_OUTBOX_KEY: '' });
    const keys = [first.config.DEV_OUTBOX_KEY, second.config.DEV_OUTBOX_KEY];
    expect(keys[0]).not.toBe(keys[1]);
    for (const [i, t] of [first, second].entries()) {
      expect(keys[i]).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const own = await t.app.inject({ method: 'GET', url: `/dev/outbox.json?key=${keys[i]}` });
      expect(own.statusCode).toBe(200);
      const other = await t.app.inject({ method: 'GET', url: `/dev/outbox.json?key=${keys[1 - i]}` });
      expect(other.statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: `/dev/outbox.json?key=${OUTBOX_KEY}` })).statusCode).toBe(404);
    }
  });

  it('refuses a short or unsafe DEV_OUTBOX_KEY without echoing it', async () => {
    await expect(appWith({ DEV_OUTBOX_KEY: 'short' })).rejects.toThrow(
      /^Invalid configuration: DEV_OUTBOX_KEY must be at least 16 characters$/,
    );
    await expect(appWith({ DEV_OUTBOX_KEY: 'a key with spaces in it' })).rejects.toThrow(
      /^Invalid configuration: DEV_OUTBOX_KEY must be letters, digits/,
    );
  });

  it('answers 404 when NODE_ENV=production, even with the key; the app itself still answers', async () => {
    const t = await appWith({ NODE_ENV: 'production' });
    for (const url of [`/dev/outbox.json?key=${OUTBOX_KEY}`, `/dev/outbox?key=${OUTBOX_KEY}`]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    const owner = await createUser(t.app);
    expect((await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: owner.headers })).statusCode).toBe(200);
    // Any other NODE_ENV keeps the outbox.
    const dev = await appWith({ NODE_ENV: 'development' });
    expect((await dev.app.inject({ method: 'GET', url: `/dev/outbox.json?key=${OUTBOX_KEY}` })).statusCode).toBe(200);
  });
});

describe('dev outbox: the start line prints its address with the key', () => {
  let child: ChildProcess | undefined;
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-outbox-key-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('Jupyter-style: "Dev outbox: http://localhost:<port>/dev/outbox?key=…", and that address opens it', async () => {
    // As `npm start` runs it, with no NODE_ENV, no DEV_OUTBOX_KEY and no APP_URL; on a port the
    // system picks (PORT=0), which the outbox address must name, not 0.
    child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const [port, address] = await new Promise<[string, string]>((resolve, reject) => {
      child?.stdout?.on('data', (chunk) => {
        out += String(chunk);
        const listening = out.match(/\(listening on http:\/\/127\.0\.0\.1:(\d+)\)/);
        const found = out.match(/Dev outbox: (http:\/\/localhost:\d+\/dev\/outbox\?key=[A-Za-z0-9_-]+)/);
        if (listening?.[1] && found?.[1]) resolve([listening[1], found[1]]);
      });
      child?.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
    });
    expect(port).not.toBe('0');
    expect(address).toMatch(new RegExp(`^http://localhost:${port}/dev/outbox\\?key=[A-Za-z0-9_-]{32}$`));
    // A process just started on a machine busy with other suites may shed its first requests
    // (503 with Retry-After, server/plugins/overload.ts): opened again, as a person would.
    const opened = () => fetch(address).then((res) => res.status);
    await expect.poll(opened, { timeout: 30_000, interval: 500 }).not.toBe(503);
    const page = await fetch(address);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Dev outbox');
    expect((await fetch(`http://localhost:${port}/dev/outbox`)).status).toBe(404);
    expect((await fetch(address.replace('/dev/outbox?', '/dev/outbox.json?'))).status).toBe(200);
  }, 90_000);
});
