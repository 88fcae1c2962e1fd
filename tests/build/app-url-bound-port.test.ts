import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { outboxSms, type SeededUser, seedUser } from '../e2e/seed.js';
import { listeningUrl, OUTBOX_KEY, outboxJsonPath } from '../e2e/server.js';
import { INVITATION_SMS } from '../server/faults/world.js';

// A server started on a port the system picks (PORT=0) with no APP_URL: its default APP_URL,
// http://localhost:<port>, names the port it is bound to, so the links in its SMS and e-mails
// reach it. The process keeps its own SQLite file whichever database the suite runs on, so it
// is a build test: run once, in the SQLite pass.

/** How long the dispatcher gets to hand both SMS to the outbox (ms). */
const SMS_SENT_WITHIN_MS = 15_000;

describe('PORT=0 and no APP_URL: links name the bound port', () => {
  let child: ChildProcess;
  let dataDir: string;
  let base: string;
  let port: string;
  let user: SeededUser;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-port-zero-'));
    child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: dataDir,
        // The start line, which names the bound address, is logged at info.
        LOG_LEVEL: 'info',
        DEV_OUTBOX_KEY: OUTBOX_KEY,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    base = await listeningUrl(child);
    port = new URL(base).port;
    user = await seedUser(base, { countdownSeconds: 0 });
  }, 60_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("each contact's SMS links to the live page on the bound port, and the link reaches this server", async () => {
    expect(Number(port)).toBeGreaterThan(0);
    const sent = await fetch(`${base}/api/emergency/public/${user.token}/alerts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ mode: 'real', location: null, location_error: 'unavailable' }),
    });
    expect(sent.status).toBe(201);

    const phones = user.contacts.map((c) => c.phone_number);
    const sms = await vi.waitFor(
      async () => {
        const mine = (await outboxSms(base)).filter((m) => phones.includes(m.to) && !INVITATION_SMS.test(m.body));
        if (mine.length < phones.length) throw new Error(`${mine.length} of ${phones.length} SMS sent`);
        return mine;
      },
      { timeout: SMS_SENT_WITHIN_MS, interval: 100 },
    );
    for (const message of sms) {
      const link = message.body.match(/https?:\/\/\S+/)?.[0];
      expect(link, message.body).toMatch(new RegExp(`^http://localhost:${port}/a/[\\w-]+\\?c=[\\w-]+$`));
      const publicId = new URL(link!).pathname.split('/')[2];
      const live = await fetch(`${new URL(link!).origin}/api/live/${publicId}/`);
      expect(live.status).toBe(200);
    }
  });

  it('the e-mailed verification link names the bound port too', async () => {
    const outbox = (await (await fetch(`${base}${outboxJsonPath}`)).json()) as { emails: { text: string }[] };
    const links = outbox.emails.flatMap((m) => m.text.match(/https?:\/\/\S+\/verify-email\/\S+/g) ?? []);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(new URL(link).origin).toBe(`http://localhost:${port}`);
  });
});
