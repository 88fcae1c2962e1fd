import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, expect, type Page, test } from '@playwright/test';
import pg from 'pg';
import config, { chromiumArgs } from '../../playwright.config.js';
import { freePort, homeTrusting, missingTools, PROXY_HOST, type RunningCaddy, startCaddy } from './caddy.js';
import { type OutboxProcess, startOutboxProcess } from './proxied-servers.js';
import { INVITATION, type SeededUser, seedUser } from './seed.js';
import { OUTBOX_KEY, startServer } from './server.js';

// Alerta as an operator runs it (docs/DEPLOY.md): Debian's Caddy with deploy/Caddyfile on a
// host name, its certificate signed by Caddy's local authority (Let's Encrypt's stand-in here),
// in front of two server processes over one PostgreSQL and Redis with TRUST_PROXY=1; Chromium
// trusts that authority as a phone trusts Let's Encrypt and reaches the name through Caddy.

const DATABASE_URL = process.env.TEST_DATABASE_URL;
const REDIS_URL = process.env.TEST_REDIS_URL;
const missing = missingTools();
if (missing.length > 0) throw new Error(`the HTTPS proxy test needs ${missing.join(' and ')}`);
// Declared condition: two processes share one PostgreSQL and relay through Redis; .ci/run always
// sets both, so nothing here is skipped in CI.
const runnable = Boolean(DATABASE_URL && REDIS_URL);
if (!runnable)
  console.warn('HTTPS proxy: not run because TEST_DATABASE_URL or TEST_REDIS_URL is not set (.ci/run sets both)');

const LISBON = { latitude: 38.72225, longitude: -9.13934, accuracy: 12 };
/** How long after the expected SMS the test watches for a duplicate (ms). */
const NO_DUPLICATE_WINDOW_MS = 1500;

test.describe('behind Caddy with HTTPS on a host name', () => {
  test.skip(!runnable, 'needs TEST_DATABASE_URL and TEST_REDIS_URL');
  test.describe.configure({ timeout: 120_000 });

  let admin: pg.Client;
  let database = '';
  let processes: OutboxProcess[] = [];
  let caddy: RunningCaddy | undefined;
  let user: SeededUser;
  let home = '';
  let profile = '';
  let context: BrowserContext | undefined;

  test.beforeAll(async () => {
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    database = `alerta_proxy_${randomBytes(5).toString('hex')}`;
    await admin.query(`create database ${database}`);
    const url = new URL(DATABASE_URL!);
    url.pathname = `/${database}`;
    const shared = { DATABASE_URL: url.href, JWT_SECRET: 'the-processes-behind-caddy-share-this-48-characters' };

    // The account is made on a process of its own, on this machine, not behind the proxy: behind
    // one (TRUST_PROXY) the dev outbox and the simulated checkout answer no one. It also runs the
    // migrations, and stops before the alert so that its dispatcher sends nothing.
    const seeding = await startServer({ ...shared, BENCH_NO_RATE_LIMIT: '1' });
    try {
      user = await seedUser(seeding.url, { countdownSeconds: 0 });
    } finally {
      await seeding.stop();
    }

    // Caddy's port is known only once it runs, and APP_URL must name it: the processes start
    // first on ports of their own, Caddy in front of them, then the SMS links are checked.
    const port = await freePort();
    const env = { ...shared, REDIS_URL: REDIS_URL!, TRUST_PROXY: '1', APP_URL: `https://${PROXY_HOST}:${port}` };
    processes = await Promise.all([startOutboxProcess(env), startOutboxProcess(env)]);
    caddy = await startCaddy(
      processes.map((p) => new URL(p.url).host),
      port,
    );
    home = homeTrusting(caddy.rootCertPath);
    profile = mkdtempSync(path.join(os.tmpdir(), 'alerta-proxy-profile-'));
    // A persistent context with its own profile: an ordinary one is incognito, never installable.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: config.use?.launchOptions?.executablePath,
      args: [...chromiumArgs, `--host-resolver-rules=MAP ${PROXY_HOST} 127.0.0.1`],
      env: { ...process.env, HOME: home },
      permissions: ['geolocation'],
      geolocation: LISBON,
    });
  });

  test.afterAll(async () => {
    await context?.close();
    await caddy?.stop();
    for (const p of processes) await p.stop();
    if (database) await admin.query(`drop database if exists ${database} with (force)`);
    await admin?.end();
    for (const dir of [home, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** This user's SMS from both processes' outboxes: either one may have stored and sent the alert. */
  async function smsOfUser() {
    const phones = new Set(user.contacts.map((c) => c.phone_number));
    const all = (await Promise.all(processes.map((p) => p.sms()))).flat();
    return all.filter((m) => phones.has(m.to) && m.body.includes(user.username) && !INVITATION.test(m.body));
  }

  test('the emergency link: HSTS, service worker, installable, one SMS per contact, and "on my way" streamed within a second', async () => {
    const origin = caddy!.origin;
    const sender = await context!.newPage();
    const response = await sender.goto(`${origin}/public/${user.token}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['strict-transport-security']).toMatch(/max-age=\d{7,}/);

    // The countdown is 0: opening the link sends the alert, through the proxy.
    await expect(sender.getByTestId('sent')).toBeVisible({ timeout: 15_000 });
    await sender.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
    const cdp = await context!.newCDPSession(sender);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors.map((e) => e.errorId)).toEqual([]);
    expect((await cdp.send('Page.getAppManifest')).url).toBe(`${origin}/public/${user.token}/manifest.webmanifest`);

    await expect.poll(async () => (await smsOfUser()).length, { timeout: 15_000 }).toBe(user.contacts.length);
    // Assertion window: no duplicate SMS arrives after the expected ones (nothing to wait for).
    await new Promise((resolve) => setTimeout(resolve, NO_DUPLICATE_WINDOW_MS));
    const sms = await smsOfUser();
    for (const contact of user.contacts) expect(sms.filter((m) => m.to === contact.phone_number)).toHaveLength(1);

    // The first contact opens the live link of their SMS, which names the proxy's origin.
    const first = user.contacts[0]!;
    const link = sms.find((m) => m.to === first.phone_number)?.body.match(/https:\/\/\S+\/a\/[\w-]+\?c=[\w-]+/)?.[0];
    expect(link?.startsWith(`${origin}/a/`), `live link in ${sms[0]?.body}`).toBe(true);
    const contact = await context!.newPage();
    await contact.goto(link!);
    await expect(contact.getByRole('heading', { name: `${user.username} precisa de ajuda` })).toBeVisible();

    // The sender's page hears it over its event stream, through Caddy, within a second.
    await contact.getByRole('button', { name: 'Vou a caminho' }).click();
    await expect(contact.getByTestId('ack-sent')).toBeVisible();
    await expect(sender.getByTestId('responders')).toContainText(`${first.name} vai a caminho`, {
      timeout: 1000,
    });
  });

  test('the dev pages and the metrics answer no one through the proxy', async () => {
    const page: Page = await context!.newPage();
    await page.goto(`${caddy!.origin}/public/${user.token}/manifest.webmanifest`);
    const statuses = await page.evaluate(
      (paths) => Promise.all(paths.map(async (p) => (await fetch(p, { cache: 'no-store' })).status)),
      [`/dev/outbox.json?key=${OUTBOX_KEY}`, `/dev/outbox?key=${OUTBOX_KEY}`, '/dev/checkout/x/pay', '/metrics'],
    );
    expect(statuses).toEqual([404, 404, 404, 404]);
    // And the processes themselves, asked directly on this machine, refuse the outbox behind a proxy.
    for (const p of processes) expect((await fetch(`${p.url}/dev/outbox.json?key=${OUTBOX_KEY}`)).status).toBe(404);
  });
});
