import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outboxSms, type SeededUser, seedUser } from '../e2e/seed.js';
import { startServer } from '../e2e/server.js';
import type { Tab } from './engines.js';
import { BODY_TEXT, ENGINES, until, untilControlled, waitForText, watch } from './page-helpers.js';
import { engineSuite } from './suite.js';

// The emergency page, its service worker and the test page on Chromium, WebKit (Safari's
// engine) and Firefox: the same scenarios on each, against the real built server. No engine
// here has an offline switch that reaches its service worker, so "no network" is the real
// thing: the server process stops, and starts again on the same port and data directory.

const SERVER_ENV = { BENCH_NO_RATE_LIMIT: '1' };

const DIST = process.env.ALERTA_DIST_DIR ?? path.resolve(import.meta.dirname, '../../dist');

/** A copy of the build whose service worker throws while it is evaluated, as a broken release would. */
function buildWithBrokenWorker(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-broken-sw-'));
  cpSync(DIST, dir, { recursive: true });
  for (const copy of ['sw.js.gz', 'sw.js.br']) rmSync(path.join(dir, copy), { force: true });
  writeFileSync(path.join(dir, 'sw.js'), "throw new Error('this worker cannot start');\n");
  return dir;
}

/**
 * Assertion window (ms): after one SMS per contact, how long a test watches for a second one.
 * A duplicate has no event to wait for, so the test watches for this long.
 */
const NO_DUPLICATE_WINDOW_MS = 3000;
/**
 * Assertion window (ms): how long after Cancel a test watches the 3-second countdown's time
 * pass with nothing sent. The engines are driven over WebDriver as well, with no page clock to
 * run forward, so the countdown is watched in real time.
 */
const CANCELLED_COUNTDOWN_WINDOW_MS = 4500;

// Page-side snippets: bodies of async functions, run by every engine as they are.
const CHECKS = `return Object.fromEntries([...document.querySelectorAll('[data-check]')]
  .map((li) => [li.getAttribute('data-check'), li.getAttribute('data-result')]));`;
const WORKER_STATE = `const r = await navigator.serviceWorker.getRegistration();
  return r && r.active ? r.active.state : null;`;
/** After the alert: whether the deliveries come before who is on the way, and both before the check-in. */
const SENT_ORDER = `const delivery = document.querySelector('ul.contacts li[data-status]');
  const responders = document.getElementById('responders-heading');
  const checkin = document.getElementById('checkin-title');
  if (!delivery || !responders || !checkin) return null;
  const before = (a, b) => Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
  return { deliveriesFirst: before(delivery, responders), checkinLast: before(responders, checkin) };`;
const click = (label: string) => `
  const button = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === ${JSON.stringify(label)});
  if (!button) return false;
  button.click();
  return true;`;

describe.each(ENGINES)('emergency page on %s', (name) => {
  const suite = engineSuite(name, SERVER_ENV);
  const { stopServer, restartServer } = suite;
  const url = (path: string) => `${suite.server.url}${path}`;

  /** This user's SMS in the dev outbox (every user has its own name; the numbers repeat). */
  async function smsTo(user: SeededUser, base = suite.server.url) {
    const phones = new Set(user.contacts.map((c) => c.phone_number));
    return (await outboxSms(base)).filter((m) => phones.has(m.to) && m.body.includes(user.username));
  }
  /** Waits for exactly one SMS per contact, then makes sure no second one follows. */
  async function expectOncePerContact(user: SeededUser, timeoutMs = 30_000, base = suite.server.url) {
    await until(
      'an SMS to each contact',
      async () => (await smsTo(user, base)).length >= user.contacts.length,
      timeoutMs,
    );
    await watch(NO_DUPLICATE_WINDOW_MS);
    const sms = await smsTo(user, base);
    expect(sms.map((m) => m.to).sort()).toEqual(user.contacts.map((c) => c.phone_number).sort());
    return sms;
  }
  const textOf = (tab: Tab) => tab.run<string>(BODY_TEXT);

  /** One visit with the server up: the worker takes the page, the owner and contacts are saved, the countdown is cancelled. */
  async function warmUp(user: SeededUser): Promise<void> {
    const tab = await suite.engine.newTab();
    await tab.goto(url(`/public/${user.token}/`));
    // Cancelled first: the countdown runs from the page's load, and the worker's first install
    // (its whole precache) may take longer than the countdown on a busy machine.
    await until('the Cancel button', () => tab.run<boolean>(click('Cancelar')));
    await waitForText(tab, 'Alerta cancelado. Nada foi enviado.');
    await untilControlled(tab);
    await tab.close();
  }

  it('the test page is right on its first visit: the worker installs and "Works offline" passes', async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 3 });
    const tab = await suite.engine.newTab();
    await tab.goto(url(`/test/${user.token}/`));
    // The location check alone may wait 10 s for a fix that never comes here.
    const checks = await until(
      'the checklist',
      async () => {
        const found = await tab.run<Record<string, string>>(CHECKS);
        return Object.keys(found).length > 0 ? found : null;
      },
      40_000,
    );
    expect(checks).toMatchObject({ network: 'pass', token: 'pass', subscription: 'pass', contacts: 'pass' });
    expect(checks.offline).toBe('pass');
    expect(['pass', 'warn']).toContain(checks.storage);
    expect(await tab.run<string | null>(WORKER_STATE)).toBe('activated');
    await tab.close();
  }, 90_000);

  it('countdown and Cancel send nothing', async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 3 });
    const tab = await suite.engine.newTab();
    await tab.goto(url(`/public/${user.token}/`));
    await waitForText(tab, 'O alerta sai em');
    expect(await tab.run<boolean>(click('Cancelar'))).toBe(true);
    await waitForText(tab, 'Alerta cancelado. Nada foi enviado.');
    await watch(CANCELLED_COUNTDOWN_WINDOW_MS);
    expect(await textOf(tab)).not.toContain('Alerta enviado');
    expect(await smsTo(user)).toEqual([]);
    await tab.close();
  }, 60_000);

  it('after the alert, the deliveries and who is on the way come before the check-in', async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 0 });
    const tab = await suite.engine.newTab();
    await tab.goto(url(`/public/${user.token}/`));
    await waitForText(tab, 'Alerta enviado', 30_000);
    const order = await until('the deliveries, who is on the way and the check-in', () =>
      tab.run<{ deliveriesFirst: boolean; checkinLast: boolean } | null>(SENT_ORDER),
    );
    expect(order).toEqual({ deliveriesFirst: true, checkinLast: true });
    await tab.close();
  }, 60_000);

  it('after one visit the page opens from the cache with the server stopped, owner and contacts from IndexedDB', async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 5 });
    await warmUp(user);
    await stopServer();
    try {
      const tab = await suite.engine.newTab();
      await tab.goto(url(`/public/${user.token}/`));
      await waitForText(tab, `Alerta de ${user.username}`);
      const text = await textOf(tab);
      for (const contact of user.contacts) expect(text).toContain(contact.name);
      expect(text).toContain('O alerta sai em');
      expect(await tab.run<boolean>(click('Cancelar'))).toBe(true);
      await waitForText(tab, 'Alerta cancelado. Nada foi enviado.');
      await tab.close();
    } finally {
      await restartServer();
    }
    expect(await smsTo(user)).toEqual([]);
  }, 90_000);

  it('an alert pressed with the server down reaches each contact once when it returns, the page still open', async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 3 });
    await warmUp(user);
    await stopServer();
    const tab = await suite.engine.newTab();
    try {
      await tab.goto(url(`/public/${user.token}/`));
      await waitForText(tab, 'Sem rede: o alerta está em fila e será enviado quando houver ligação.', 30_000);
    } finally {
      await restartServer();
    }
    // The page retries by itself; no `online` event comes, the network never went away.
    await waitForText(tab, 'Alerta enviado', 40_000);
    const sms = await expectOncePerContact(user);
    for (const m of sms) expect(m.body).toContain('EMERGENCIA');
    await tab.close();
  }, 120_000);

  it("an alert pressed with the server down and its tab closed goes once when the app's home page opens", async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 3 });
    await warmUp(user);
    await stopServer();
    try {
      const tab = await suite.engine.newTab();
      await tab.goto(url(`/public/${user.token}/`));
      await waitForText(tab, 'Sem rede: o alerta está em fila e será enviado quando houver ligação.', 30_000);
      await tab.close();
    } finally {
      await restartServer();
    }
    // The worker replays the request it rebuilt from IndexedDB: no emergency page is open.
    const home = await suite.engine.newTab();
    await home.goto(url('/'));
    await expectOncePerContact(user, 20_000);
    await home.close();
  }, 120_000);

  it('a tab closed while the page waits for a GPS fix still sends the press, with "location unavailable"', async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 0 });
    // The worker must hold the press: it controls every page of the origin once installed.
    const first = await suite.engine.newTab();
    await first.goto(url('/'));
    await untilControlled(first);
    await first.close();
    const tab = await suite.engine.newTab({ pendingGeolocation: true });
    await tab.goto(url(`/public/${user.token}/`));
    await untilControlled(tab);
    // Opening the page with no countdown is the press; the fix never comes here.
    await until('the wait for a fix', async () => {
      const text = await textOf(tab);
      return text.includes('A enviar o alerta…') && text.includes('A procurar a localização…');
    });
    await tab.close();
    const sms = await expectOncePerContact(user, 20_000);
    for (const m of sms) expect(m.body).toContain('Localizacao indisponivel');
  }, 90_000);

  it('a worker that cannot start never stops the alert: the page says it is not available offline and sends', async () => {
    const dist = buildWithBrokenWorker();
    // Another origin (another port): this engine has no worker registered there yet.
    const other = await startServer({ ...SERVER_ENV, ALERTA_DIST_DIR: dist });
    try {
      const user = await seedUser(other.url, { countdownSeconds: 3 });
      const tab = await suite.engine.newTab();
      await tab.goto(`${other.url}/public/${user.token}/`);
      await waitForText(tab, 'Não disponível sem rede neste navegador: com rede, o alerta sai na mesma.');
      await waitForText(tab, 'Alerta enviado', 40_000);
      await expectOncePerContact(user, 20_000, other.url);
      await tab.close();
    } finally {
      await other.stop();
      rmSync(dist, { recursive: true, force: true });
    }
  }, 120_000);
});
