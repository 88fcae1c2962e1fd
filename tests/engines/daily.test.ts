import { describe, expect, it } from 'vitest';
import { DEVICE_KEY_STORAGE_KEY } from '../../common/constants.js';
import { DAILY_REMINDER_HASH, DEVICE_KEY_DB } from '../../common/push.js';
import { seedUser } from '../e2e/seed.js';
import type { Tab } from './engines.js';
import { click, ENGINES, PASSWORD, signInOnPage, until, untilControlled, waitForText } from './page-helpers.js';
import { engineSuite } from './suite.js';

// The daily check-in's "Estou bem hoje" on the emergency page in each engine: only on the owner's
// phone (the page reads and checks in with its device key; the link alone sees nothing and is
// refused), and tapped with the server down, queued by the service worker and counted, when the
// server returns, at the time it was tapped. As in checkin.test.ts, "no network" is the server
// process stopping and starting again on the same port and data directory.

const SERVER_ENV = { BENCH_NO_RATE_LIMIT: '1' };
/** "HH:MM" in UTC (a seeded owner has no time zone) `minutes` from now. */
const utcClock = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString().slice(11, 16);

describe.each(ENGINES)('daily check-in on %s', (name) => {
  const suite = engineSuite(name, SERVER_ENV);
  const { stopServer, restartServer } = suite;

  const login = async (username: string) => {
    const answer = await fetch(`${suite.server.url}/api/users/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: PASSWORD }),
    });
    return ((await answer.json()) as { access: string }).access;
  };
  /** The schedule as the owner's session reads it. */
  const daily = async (access: string) => {
    const answer = await fetch(`${suite.server.url}/api/users/me/daily-checkin/`, {
      headers: { authorization: `Bearer ${access}` },
    });
    return (await answer.json()) as { status: string; last_ok_at: string | null; next_due_at: string };
  };
  /** A seeded owner whose daily check-in is due in 30 minutes: the page offers "Estou bem hoje". */
  async function ownerDueSoon() {
    const user = await seedUser(suite.server.url, { countdownSeconds: 10 });
    const access = await login(user.username);
    const set = await fetch(`${suite.server.url}/api/users/me/daily-checkin/`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true, time: utcClock(30), every_days: 1, grace_minutes: 60 }),
    });
    expect(set.status).toBe(200);
    const view = (await set.json()) as { next_due_at: string; last_ok_at: string };
    return { user, access, due: view.next_due_at, setAt: view.last_ok_at };
  }
  async function openCancelled(token: string): Promise<Tab> {
    const tab = await suite.engine.newTab();
    await tab.goto(`${suite.server.url}/public/${token}/`);
    await until('the Cancel button', () => tab.run<boolean>(click('Cancelar')));
    await waitForText(tab, 'Alerta cancelado. Nada foi enviado.');
    return tab;
  }
  const hasOkButton = (tab: Tab) =>
    tab.run<boolean>(
      `return [...document.querySelectorAll('button')].some((b) => b.textContent.trim() === 'Estou bem hoje');`,
    );

  it('shows "Estou bem hoje" only on the owner’s phone, and checks in with it', async () => {
    const { user, access, due, setAt } = await ownerDueSoon();
    const stranger = await openCancelled(user.token);
    expect(await hasOkButton(stranger)).toBe(false);
    const refused = await fetch(`${suite.server.url}/api/emergency/public/${user.token}/daily/ok/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.status).toBe(403);
    await signInOnPage(stranger, user.username);
    await stranger.close();
    const owner = await openCancelled(user.token);
    await until('"Estou bem hoje"', () => owner.run<boolean>(click('Estou bem hoje')));
    await waitForText(owner, 'Check-in feito. Obrigado!');
    const after = await daily(access);
    expect(after.last_ok_at).not.toBe(setAt);
    expect(Date.parse(after.next_due_at)).toBeGreaterThan(Date.parse(due));
    await owner.close();
  }, 90_000);

  it('“Estou bem hoje” sits at least 32 px from “Enviar alerta agora”, in another colour', async () => {
    const { user } = await ownerDueSoon();
    const first = await openCancelled(user.token);
    await signInOnPage(first, user.username);
    await first.close();
    const tab = await openCancelled(user.token);
    await until('"Estou bem hoje" shown', () => hasOkButton(tab));
    const apart = await tab.run<{ gap: number; sendColour: string; okColour: string }>(`
      const byText = (text) => [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === text);
      const send = byText('Enviar alerta agora');
      const ok = byText('Estou bem hoje');
      const a = send.getBoundingClientRect();
      const b = ok.getBoundingClientRect();
      return {
        gap: Math.max(b.top - a.bottom, a.top - b.bottom),
        sendColour: getComputedStyle(send).backgroundColor,
        okColour: getComputedStyle(ok).backgroundColor,
      };`);
    expect(apart.gap).toBeGreaterThanOrEqual(32);
    expect(apart.okColour).not.toBe(apart.sendColour);
    await tab.close();
  }, 90_000);

  /** Whether the service worker's copy of the device key (IndexedDB, read by sw/push.ts) is the page's own. */
  const workerHasKey = (tab: Tab) =>
    tab.run<boolean>(`
      const request = (make) => new Promise((resolve, reject) => {
        const r = make();
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const db = await request(() => indexedDB.open(${JSON.stringify(DEVICE_KEY_DB.database)}));
      try {
        const copy = await request(() =>
          db.transaction(${JSON.stringify(DEVICE_KEY_DB.store)}).objectStore(${JSON.stringify(DEVICE_KEY_DB.store)}).get(${JSON.stringify(DEVICE_KEY_STORAGE_KEY)}),
        );
        const own = JSON.parse(localStorage.getItem(${JSON.stringify(DEVICE_KEY_STORAGE_KEY)}) || 'null');
        return Boolean(copy && own && copy.key === own.key);
      } finally {
        db.close();
      }`);

  // What the daily reminder's notification opens (sw/push.ts: a tap, or "Estou bem" with no key
  // or refused). The notification itself is not reachable here: no engine's driver shows or
  // clicks one (the worker's action is driven in Chromium by tests/e2e/daily-push.spec.ts).
  it('the page opened as the daily reminder opens it (#daily): no countdown, “Estou bem hoje” focused, and the tap checks in', async () => {
    const { user, access, setAt } = await ownerDueSoon();
    const first = await openCancelled(user.token);
    await signInOnPage(first, user.username);
    // The key the page signed in with is where the worker reads it.
    expect(await until('the worker’s copy of the key', () => workerHasKey(first))).toBe(true);
    await first.close();
    const tab = await suite.engine.newTab();
    await tab.goto(`${suite.server.url}/public/${user.token}/${DAILY_REMINDER_HASH}`);
    await until('"Estou bem hoje" focused', () =>
      tab.run<boolean>(`return document.activeElement?.textContent.trim() === 'Estou bem hoje';`),
    );
    expect(await tab.run<boolean>(`return document.querySelector('[data-testid="countdown"]') === null;`)).toBe(true);
    await until('"Estou bem hoje"', () => tab.run<boolean>(click('Estou bem hoje')));
    await waitForText(tab, 'Check-in feito. Obrigado!');
    const after = await daily(access);
    expect(after.status).toBe('waiting');
    expect(after.last_ok_at).not.toBe(setAt);
    await tab.close();
  }, 90_000);

  it('"Estou bem hoje" tapped with the server down waits in the queue and counts at the time it was tapped', async () => {
    const { user, access, setAt } = await ownerDueSoon();
    const first = await openCancelled(user.token);
    await untilControlled(first);
    await signInOnPage(first, user.username);
    await first.close();
    const tab = await openCancelled(user.token);
    await untilControlled(tab);
    await until('"Estou bem hoje" shown', () => hasOkButton(tab));
    await stopServer();
    const tapped = Date.now();
    try {
      await until('"Estou bem hoje"', () => tab.run<boolean>(click('Estou bem hoje')));
      // Chromium sends it by Background Sync, even with the page closed; WebKit and Firefox when Alerta is open again.
      const saved =
        name === 'chromium'
          ? 'Guardado: é enviado quando a rede voltar'
          : 'Guardado neste telemóvel: é enviado quando a rede voltar com o Alerta aberto';
      await waitForText(tab, saved, 30_000);
    } finally {
      await restartServer();
    }
    // Any page of the app opening makes the worker send its queue (no Background Sync in WebKit and Firefox).
    const home = await suite.engine.newTab();
    await home.goto(`${suite.server.url}/`);
    const checked = await until(
      'the queued check-in',
      async () => {
        const view = await daily(access);
        return view.last_ok_at !== setAt ? view : false;
      },
      40_000,
    );
    expect(Math.abs(Date.parse(checked.last_ok_at as string) - tapped)).toBeLessThan(15_000);
    await home.close();
    await tab.close();
  }, 120_000);
});
