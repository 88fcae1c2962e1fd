import type { BrowserContext, Page, Request } from '@playwright/test';
import { mapsUrl } from '../../common/sms-text.js';
import { SW_MESSAGE } from '../../common/sw-messages.js';
import { expect, test } from './emergency-fixtures.js';
import { ownersPhone } from './owner-key.js';
import { type Link, startLink } from './proxy.js';
import { outboxSms, type SeededUser, seedUser } from './seed.js';

const LISBON = { latitude: 38.72225, longitude: -9.13934, accuracy: 12 };

/**
 * Opens the emergency page and cancels its countdown, so the visit only warms the caches, then
 * waits for the service worker to control the page. Cancel first: a first install can outlast
 * the 3-second countdown on a loaded machine, and the visit would send an alert.
 */
async function warmUp(page: Page, user: SeededUser) {
  await page.goto(`/public/${user.token}/`);
  await page.getByRole('button', { name: 'Cancelar' }).click();
  await expect(page.getByText('Alerta cancelado. Nada foi enviado.')).toBeVisible();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
}

/** The SMS sent for this user's alerts (every test user has its own name, the numbers repeat). */
async function smsTo(base: string, user: SeededUser) {
  const phones = new Set(user.contacts.map((c) => c.phone_number));
  return (await outboxSms(base)).filter((m) => phones.has(m.to) && m.body.includes(user.username));
}

/**
 * No network for the page and its service worker: `setOffline` flips `navigator.onLine` and
 * fires the events, the cut link makes every request fail the way a dead radio does.
 */
async function goOffline(context: BrowserContext, link: Link) {
  link.down();
  await context.setOffline(true);
}
async function goOnline(context: BrowserContext, link: Link) {
  link.up();
  await context.setOffline(false);
}

/** Pages opened through a link the test can cut. */
const linked = test.extend<{ link: Link }>({
  link: async ({ server }, use) => {
    const link = await startLink(server.port);
    await use(link);
    await link.close();
  },
  baseURL: async ({ link }, use) => {
    await use(link.url);
  },
});

const isAlertPost = (request: Request) =>
  request.method() === 'POST' && /\/public\/[^/]+\/alerts\/$/.test(new URL(request.url()).pathname);

/**
 * Every alert POST of the context from now on, by the page or its service worker, with its key,
 * and the alerts the server answered them with: one press is one key and one alert.
 */
function watchAlertPosts(context: BrowserContext) {
  const posts: { key: string; byWorker: boolean }[] = [];
  const alerts = new Set<string>();
  context.on('request', (request) => {
    if (isAlertPost(request)) {
      posts.push({ key: request.headers()['idempotency-key'] ?? '', byWorker: request.serviceWorker() !== null });
    }
  });
  context.on('response', async (response) => {
    if (!isAlertPost(response.request()) || !response.ok()) return;
    const id = ((await response.json().catch(() => null)) as { id?: string } | null)?.id;
    if (id) alerts.add(id);
  });
  return { posts, alerts };
}

/**
 * Asks the page's service worker to send its queue and waits for its answer (`{ok: true}`: the
 * queue went out). The worker has then also read every message the page sent it before.
 */
const workerQueueSent = (page: Page) =>
  page.evaluate(
    (type) =>
      new Promise((resolve) => {
        const worker = navigator.serviceWorker.controller;
        if (!worker) return resolve('no worker');
        const channel = new MessageChannel();
        channel.port1.onmessage = (event) => resolve(event.data);
        worker.postMessage({ type }, [channel.port2]);
      }),
    SW_MESSAGE.replayAlerts,
  );

async function withPosition(context: BrowserContext) {
  await context.grantPermissions(['geolocation']);
  await context.setGeolocation(LISBON);
}

test('cancelling the countdown sends nothing', async ({ page, server }) => {
  const user = await seedUser(server.url, { countdownSeconds: 3 });
  // The page's clock is the test's: the 3-second countdown is run past by hand, not waited out.
  await page.clock.install();
  await page.goto(`/public/${user.token}/`);
  await expect(page.getByTestId('countdown')).toContainText('O alerta sai em');
  await page.getByRole('button', { name: 'Cancelar' }).click();
  await expect(page.getByText('Alerta cancelado. Nada foi enviado.')).toBeVisible();
  await page.clock.runFor(4500);
  await expect(page.getByTestId('sent')).toHaveCount(0);
  expect(await smsTo(server.url, user)).toEqual([]);
});

test('a send with a known position puts its maps link in every SMS and shows the deliveries', async ({
  page,
  context,
  server,
}) => {
  await withPosition(context);
  const user = await seedUser(server.url, { countdownSeconds: 3 });
  // The owner's phone: its page reads the contacts' whole numbers for "send from my phone".
  await ownersPhone(context, server.url, user);
  await page.goto(`/public/${user.token}/`);
  await expect(page.getByRole('heading', { name: /Alerta de u/ })).toBeVisible();
  await expect(page.getByTestId('location')).toContainText('precisão 12 m');
  await expect(page.getByTestId('sent')).toHaveText(/^Alerta enviado às \d\d:\d\d$/, { timeout: 15_000 });
  await expect(page.locator('[data-status="delivered"]')).toHaveCount(2, { timeout: 15_000 });

  const sms = await smsTo(server.url, user);
  expect(sms.map((m) => m.to).sort()).toEqual(user.contacts.map((c) => c.phone_number).sort());
  for (const m of sms) {
    expect(m.body).toContain(mapsUrl(LISBON.latitude, LISBON.longitude));
    expect(m.body).toContain('precisao 12 m');
  }

  // "Send from my phone": the same text, to every contact, without the network; one message for
  // all, so its live link is the alert's own, without the per-contact key each server SMS has,
  // and without "reply 1": a reply to the owner's phone reaches the owner.
  const href = (await page.getByRole('link', { name: 'Enviar do meu telemóvel (SMS)' }).getAttribute('href')) ?? '';
  const [to, query] = href.replace(/^sms:/, '').split('?');
  expect(to?.split(',').sort()).toEqual(user.contacts.map((c) => c.phone_number).sort());
  expect(sms[0]?.body).toMatch(/\/a\/[\w-]+\?c=[\w-]+$/);
  expect(new URLSearchParams(query).get('body')).toBe(
    sms[0]?.body.replace(/\?c=[\w-]+$/, '').replace(' Responda 1 se vai a caminho.', ''),
  );
});

test('a link alone: masked numbers and no SMS link; "I\'m safe" refused until the owner signs in on the page', async ({
  page,
  server,
}) => {
  const user = await seedUser(server.url, { countdownSeconds: 0 });
  await page.goto(`/public/${user.token}/`);
  await expect(page.getByTestId('sent')).toBeVisible({ timeout: 15_000 });
  // The contacts' names, never their numbers (not even in the data the HTML came with), and no SMS to build.
  await expect(page.getByTestId('sms-fallback-masked')).toContainText('pode copiar a mensagem');
  await expect(page.getByRole('link', { name: 'Enviar do meu telemóvel (SMS)' })).toHaveCount(0);
  const shown = await page.content();
  for (const c of user.contacts) expect(shown).not.toContain(c.phone_number);

  await page.getByRole('button', { name: 'Estou em segurança' }).click();
  await page.getByRole('button', { name: 'Sim, estou em segurança' }).click();
  await expect(page.getByTestId('resolve-needs-owner')).toContainText('inicie sessão aqui uma vez');
  await expect(page.getByTestId('resolved')).toHaveCount(0);

  // The page's sign-in, open right there beside the refusal, then "I'm safe" again: the owner's, with the all-clear.
  const here = page.getByTestId('owner-sign-in-here');
  await expect(here.getByLabel('Nome de utilizador ou e-mail')).toBeFocused();
  await here.getByLabel('Nome de utilizador ou e-mail').fill(user.username);
  await here.getByLabel('Palavra-passe').fill('correct horse 42');
  await here.getByRole('button', { name: 'Iniciar sessão' }).click();
  // Signed in, the sign-in and the refusal go; the confirmation stays.
  await expect(page.getByTestId('resolve-needs-owner')).toHaveCount(0);
  // Signed in, the page has the whole numbers for "send from my phone".
  const sms = page.getByRole('link', { name: 'Enviar do meu telemóvel (SMS)' });
  for (const c of user.contacts) await expect(sms).toHaveAttribute('href', new RegExp(`\\${c.phone_number}`));
  await page.getByRole('button', { name: 'Sim, estou em segurança' }).click();
  await expect(page.getByTestId('resolved')).toContainText('Alerta terminado');
  await expect
    .poll(async () => (await smsTo(server.url, user)).filter((m) => m.body.includes('está em segurança')).length, {
      timeout: 10_000,
    })
    .toBe(user.contacts.length);
});

test('with location refused the alert still goes, saying why', async ({ page, server }) => {
  const user = await seedUser(server.url, { countdownSeconds: 0, language: 'en' });
  await page.goto(`/public/${user.token}/`);
  await expect(page.getByTestId('sent')).toHaveText(/^Alert sent at \d\d:\d\d$/, { timeout: 15_000 });
  const sms = await smsTo(server.url, user);
  expect(sms).toHaveLength(2);
  for (const m of sms) expect(m.body).toContain('Location unavailable (permission denied)');
});

linked(
  'the emergency page opens offline after one visit, with the SMS link to every contact',
  async ({ page, context, server, link }) => {
    const user = await seedUser(server.url, { countdownSeconds: 5 });
    // The owner's phone keeps the contacts' whole numbers for offline.
    await ownersPhone(context, server.url, user);
    await warmUp(page, user);
    await goOffline(context, link);
    await page.goto(`/public/${user.token}/`);
    await expect(page.getByRole('heading', { name: /Alerta de u/ })).toBeVisible();
    await expect(page.getByText('Maria Silva')).toBeVisible();
    await expect(page.getByTestId('countdown')).toBeVisible();
    await page.getByRole('button', { name: 'Cancelar' }).click();
    const smsHref =
      (await page.getByRole('link', { name: 'Enviar do meu telemóvel (SMS)' }).getAttribute('href')) ?? '';
    for (const c of user.contacts) expect(smsHref).toContain(c.phone_number);
    expect(decodeURIComponent(smsHref)).toContain('EMERGENCIA:');
    await goOnline(context, link);
  },
);

for (const reload of [false, true]) {
  linked(
    `offline press is queued and sent exactly once when the network returns${reload ? ', after a reload while offline' : ''}`,
    async ({ page, context, server, link }) => {
      await withPosition(context);
      const user = await seedUser(server.url, { countdownSeconds: 3 });
      await warmUp(page, user);
      const { posts, alerts } = watchAlertPosts(context);
      await goOffline(context, link);
      await page.goto(`/public/${user.token}/`);
      await expect(page.getByTestId('queued')).toHaveText(
        'Sem rede: o alerta está em fila e será enviado quando houver ligação.',
        { timeout: 15_000 },
      );
      if (reload) {
        await page.reload();
        // Pressed already: no second countdown, still waiting for the network.
        await expect(page.getByTestId('queued')).toBeVisible();
        await expect(page.getByTestId('countdown')).toHaveCount(0);
      }
      expect(await smsTo(server.url, user)).toEqual([]);

      await goOnline(context, link);
      await expect(page.getByTestId('sent')).toBeVisible({ timeout: 20_000 });
      await expect(page.locator('[data-status="delivered"]')).toHaveCount(2, { timeout: 15_000 });
      // The worker has sent its whole queue: no copy is left to go out later. Every POST, the
      // page's and the worker's, carried the one press's key and was answered with one alert.
      expect(await workerQueueSent(page)).toEqual({ ok: true });
      expect(new Set(posts.map((p) => p.key)).size).toBe(1);
      expect(alerts.size).toBe(1);
      const sms = await smsTo(server.url, user);
      expect(sms.map((m) => m.to).sort()).toEqual(user.contacts.map((c) => c.phone_number).sort());
      for (const m of sms) expect(m.body).toContain(mapsUrl(LISBON.latitude, LISBON.longitude));
    },
  );
}

linked(
  'Chromium posts the alert past the service worker; with the network down the worker still queues it and sends it once',
  async ({ page, context, server, link }) => {
    await withPosition(context);
    const user = await seedUser(server.url, { countdownSeconds: 3 });
    // What the page tells its service worker.
    await page.addInitScript(() => {
      const told: unknown[] = [];
      Object.assign(window, { toldWorker: told });
      const post = ServiceWorker.prototype.postMessage as (this: ServiceWorker, ...args: unknown[]) => void;
      ServiceWorker.prototype.postMessage = function (this: ServiceWorker, ...args: unknown[]) {
        told.push(args[0]);
        post.apply(this, args);
      } as ServiceWorker['postMessage'];
    });
    await warmUp(page, user);
    // Who made each alert POST: the page itself, or the worker (its own fetch).
    const { posts } = watchAlertPosts(context);

    // Online: the press goes straight to the server; the worker neither sees it nor sends it later.
    await page.getByRole('button', { name: 'Enviar alerta agora' }).click();
    await expect(page.getByTestId('sent')).toBeVisible({ timeout: 15_000 });
    const first = posts[0]?.key;
    expect(posts).toEqual([{ key: first, byWorker: false }]);

    // Offline: the page's own POST fails, the worker is handed the press and queues it.
    await goOffline(context, link);
    await page.getByRole('button', { name: 'Enviar novo alerta' }).click();
    await expect(page.getByTestId('queued')).toBeVisible({ timeout: 15_000 });
    const second = posts.at(-1)?.key;
    expect(second).not.toBe(first);
    await expect.poll(() => posts.filter((p) => p.key === second && p.byWorker).length).toBeGreaterThan(0);
    await goOnline(context, link);
    await expect(page.getByTestId('sent')).toBeVisible({ timeout: 20_000 });
    await expect(page.locator('[data-status="delivered"]')).toHaveCount(2, { timeout: 15_000 });
    // The page told the worker the first press was answered, and the worker has read it (it
    // answered a later message): it holds that press no more, so it never posts it itself. The
    // second it sent once (the queue) and the page confirmed it with its key.
    const told = await page.evaluate(() => (window as unknown as { toldWorker: unknown[] }).toldWorker);
    expect(told).toContainEqual({ type: SW_MESSAGE.alertSettled, key: first });
    expect(await workerQueueSent(page)).toEqual({ ok: true });
    expect(posts.filter((p) => p.key === first && p.byWorker)).toEqual([]);
    const sms = await smsTo(server.url, user);
    expect(sms.map((m) => m.to).sort()).toEqual([...user.contacts, ...user.contacts].map((c) => c.phone_number).sort());
  },
);
