import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { outboxAddress } from '../../server/features/dev/outbox-address.js';
import { buildTestApp, dbLabel, OUTBOX_KEY, type TestApp } from './helper.js';

const KEY = 'the-outbox-key-of-this-test';
const where = (env: Record<string, string>) => outboxAddress(loadConfig({ DEV_OUTBOX_KEY: KEY, ...env }), 8123);
const registration = (username: string) => ({
  username,
  email: `${username}@example.com`,
  password1: 'Sturdy-Pass-42',
  password2: 'Sturdy-Pass-42',
  accept_terms: true,
});
/** The first link in a text. */
const linkIn = (text: string) => text.match(/https?:\/\/[^\s"\\]+/)?.[0];

describe('dev outbox: the address the start line prints opens it, or it says none does', () => {
  it('names this machine at the bound port, never APP_URL, which may be a proxy', () => {
    const url = `http://localhost:8123/dev/outbox?key=${KEY}`;
    expect(where({})).toEqual({ url });
    expect(where({ APP_URL: 'https://alerta.example.org' })).toEqual({ url });
    expect(where({ HOST: '127.0.0.1' })).toEqual({ url });
    expect(where({ HOST: '::1' })).toEqual({ url });
    expect(where({ HOST: '127.0.0.2' })).toEqual({ url: `http://127.0.0.2:8123/dev/outbox?key=${KEY}` });
    expect(where({ HOST: '192.168.1.20', DEV_OUTBOX_PUBLIC: '1' })).toEqual({
      url: `http://192.168.1.20:8123/dev/outbox?key=${KEY}`,
    });
  });

  it('says why no address opens it behind TRUST_PROXY, or on an address loopback does not reach', () => {
    for (const env of [{ TRUST_PROXY: '1', HOST: '127.0.0.1' }, { TRUST_PROXY: '10.0.0.1' }] as Record<
      string,
      string
    >[]) {
      expect(where(env)).toEqual({ unreachable: expect.stringMatching(/^TRUST_PROXY is set/) });
    }
    expect(where({ HOST: '192.168.1.20' })).toEqual({ unreachable: expect.stringMatching(/^HOST=192\.168\.1\.20 /) });
  });
});

describe(`dev outbox behind TRUST_PROXY: what it captures is in the log (${dbLabel})`, () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('logs the verification e-mail, whose link verifies, while the pages still answer 404', async () => {
    const lines: string[] = [];
    t = await buildTestApp({ TRUST_PROXY: '1' }, undefined, { logLines: lines });
    const registered = await t.app.inject({
      method: 'POST',
      url: '/api/users/registration/',
      payload: registration('behindproxy'),
    });
    expect(registered.statusCode).toBe(201);
    await t.app.background.idle();
    const logged = lines.find(
      (line) => line.includes('dev outbox: captured') && line.includes('behindproxy@example.com'),
    );
    const link = linkIn(logged ?? '');
    expect(link).toBe(linkIn(t.app.outbox.emails[0]!.text));
    expect((await t.app.inject({ method: 'GET', url: new URL(link!).pathname })).statusCode).toBe(302);
    expect((await t.app.inject({ method: 'GET', url: `/dev/outbox.json?key=${OUTBOX_KEY}` })).statusCode).toBe(404);
  });

  it('logs nothing captured where the outbox opens', async () => {
    const lines: string[] = [];
    t = await buildTestApp({}, undefined, { logLines: lines });
    await t.app.inject({ method: 'POST', url: '/api/users/registration/', payload: registration('noproxy') });
    await t.app.background.idle();
    expect(t.app.outbox.emails).toHaveLength(1);
    expect(lines.filter((line) => line.includes('dev outbox: captured'))).toEqual([]);
  });
});

describe('dev outbox: the start line of a server started as `npm start` starts it', () => {
  let child: ChildProcess | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts the server with `env` and resolves with its output so far once it listens, and its port. */
  async function start(env: Record<string, string>): Promise<{ port: string; output: () => string }> {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-outbox-line-'));
    child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
    });
    const port = await new Promise<string>((resolve, reject) => {
      child?.stdout?.on('data', () => {
        const listening = out.match(/\(listening on http:\/\/127\.0\.0\.1:(\d+)\)/);
        if (listening?.[1]) resolve(listening[1]);
      });
      child?.once('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
    });
    return { port, output: () => out };
  }

  /** A request answered by a process that may shed its first ones on a busy machine (503). */
  const answered = async (url: string, init?: RequestInit) => {
    for (;;) {
      const res = await fetch(url, { ...init, redirect: 'manual' });
      if (res.status !== 503) return res;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  it('with APP_URL naming a proxy and no TRUST_PROXY: the address printed is this machine’s, and opens it', async () => {
    const { port, output } = await start({ APP_URL: 'https://alerta.example.org' });
    const address = output().match(/ · Dev outbox: (http:\/\/[^\s"]+)/)?.[1];
    expect(address).toMatch(new RegExp(`^http://localhost:${port}/dev/outbox\\?key=[A-Za-z0-9_-]{32}$`));
    expect((await answered(address!)).status).toBe(200);
  }, 90_000);

  it('behind TRUST_PROXY: no address, why, and the verification link in the log, which verifies', async () => {
    const { port, output } = await start({ APP_URL: 'https://alerta.lan', TRUST_PROXY: '1' });
    expect(output()).not.toContain('Dev outbox: http');
    expect(output()).toContain(
      'dev outbox: no address opens it (TRUST_PROXY is set, and the dev pages answer nothing that may come through a proxy, not even this machine); captured e-mails and SMS are written to this log',
    );
    const local = `http://127.0.0.1:${port}`;
    const registered = await answered(`${local}/api/users/registration/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registration('newcomer')),
    });
    expect(registered.status).toBe(201);
    await expect.poll(() => output().includes('newcomer@example.com'), { timeout: 10_000 }).toBe(true);
    const logged = output()
      .split('\n')
      .find((line) => line.includes('dev outbox: captured') && line.includes('newcomer@example.com'));
    const link = linkIn(logged ?? '');
    expect(link).toMatch(/^https:\/\/alerta\.lan\//);
    expect((await answered(`${local}${new URL(link!).pathname}`)).status).toBe(302);
  }, 90_000);
});
