import { randomUUID } from 'node:crypto';
import type { Browser, Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { ownersPhone } from './owner-key.js';
import { startLink } from './proxy.js';
import { outboxSms, type SeededUser, seedUser } from './seed.js';

const LISBON = { latitude: 38.72225, longitude: -9.13934, accuracy: 12 };
/** About 220 m north of LISBON: well past the 50 m that triggers an update. */
const NORTH = { latitude: 38.72425, longitude: -9.13934, accuracy: 9 };

/** The SMS sent for this user's alerts (the numbers repeat between tests, the names do not). */
async function smsTo(base: string, user: SeededUser) {
  const phones = new Set(user.contacts.map((c) => c.phone_number));
  return (await outboxSms(base)).filter((m) => phones.has(m.to) && m.body.includes(user.username));
}

/** The live link an alert SMS carries. */
function liveLinkIn(body: string | undefined): string {
  const link = body?.match(/https?:\/\/\S+\/a\/[A-Za-z0-9_-]+/)?.[0];
  if (!link) throw new Error(`no live link in ${body}`);
  return link;
}

/**
 * The sender, at LISBON, opens the emergency link (through `senderUrl`) on the owner's phone (its
 * device key) and the alert goes out with no countdown; the contact gets a context of their own
 * on `contactUrl`.
 */
async function sendFromLink(browser: Browser, senderUrl: string, contactUrl: string, user: SeededUser) {
  const senderContext = await browser.newContext({
    baseURL: senderUrl,
    permissions: ['geolocation'],
    geolocation: LISBON,
  });
  const contactContext = await browser.newContext({ baseURL: contactUrl });
  // The owner's own phone: "I'm safe" and positions on the owner's alert take its proof.
  await ownersPhone(senderContext, senderUrl, user);
  const sender = await senderContext.newPage();
  await sender.goto(`/public/${user.token}/`);
  await expect(sender.getByTestId('sent')).toBeVisible({ timeout: 15_000 });
  return { senderContext, contactContext, sender };
}

const position = (page: Page) => page.getByTestId('live-position');

/** Position updates waiting in the service worker's queue (Workbox keeps it in IndexedDB). */
function queuedPositionUpdates(page: Page): Promise<number> {
  return page.evaluate(async () => {
    // Not opened before Workbox makes it: opening creates a database.
    if (!(await indexedDB.databases()).some((db) => db.name === 'workbox-background-sync')) return 0;
    return new Promise<number>((resolve, reject) => {
      const open = indexedDB.open('workbox-background-sync');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const all = db.transaction('requests').objectStore('requests').getAll();
        all.onerror = () => reject(all.error);
        all.onsuccess = () => {
          db.close();
          const entries = all.result as { queueName: string; requestData: { url: string } }[];
          resolve(entries.filter((e) => e.queueName === 'alerts' && e.requestData.url.endsWith('/location/')).length);
        };
      };
    });
  });
}

test('a basic-plan alert: the live page names who needs help, shows no position and takes "on my way"', async ({
  page,
  server,
}) => {
  const user = await seedUser(server.url, {
    plan: 'basic',
    language: 'en',
    contacts: [{ name: 'Ana', phone_number: '+351915000001' }],
  });
  const res = await fetch(`${server.url}/api/emergency/public/${user.token}/alerts/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ mode: 'real', location: { ...LISBON, captured_at: new Date().toISOString() } }),
  });
  expect(res.status).toBe(201);
  await expect.poll(async () => (await smsTo(server.url, user)).length).toBe(1);
  const [sms] = await smsTo(server.url, user);
  expect(sms?.body).not.toContain('maps.google.com');
  await page.goto(liveLinkIn(sms?.body));
  await expect(page.getByRole('heading', { name: `${user.username} needs help` })).toBeVisible();
  await expect(page.getByTestId('live-state')).toHaveAttribute('data-state', 'active');
  await expect(page.getByText('No live location for this alert.')).toBeVisible();
  await expect(position(page)).toHaveCount(0);
  await page.getByRole('button', { name: "I'm on my way" }).click();
  await expect(page.getByTestId('ack-sent')).toBeVisible();
  await expect(page.getByTestId('responders')).toContainText('Someone is on the way');
  // Nothing about the owner beyond the SMS: no phone numbers, no token.
  const text = (await page.locator('body').textContent()) ?? '';
  expect(text).not.toContain('+351915000001');
  expect(text).not.toContain(user.token);
  await page.goto('/a/not-a-real-alert-id-at-all');
  await expect(page.getByText('Esta ligação não existe.')).toBeVisible();
});

test('the contact follows the sender live, says "on my way", and sees the all-clear', async ({ browser, server }) => {
  const user = await seedUser(server.url, {
    countdownSeconds: 0,
    contacts: [{ name: 'Maria Silva', phone_number: '+351915000002' }],
  });
  const { senderContext, contactContext, sender } = await sendFromLink(browser, server.url, server.url, user);
  try {
    await expect(sender.getByTestId('tracking')).toHaveAttribute('data-status', 'tracking');

    // The SMS in the outbox carries the live link beside the maps link.
    await expect.poll(async () => (await smsTo(server.url, user)).length, { timeout: 10_000 }).toBe(1);
    const [alertSms] = await smsTo(server.url, user);
    expect(alertSms?.body).toContain('https://maps.google.com/?q=38.72225,-9.13934');
    const link = liveLinkIn(alertSms?.body);

    const contact = await contactContext.newPage();
    await contact.goto(link);
    await expect(contact.getByRole('heading', { name: `${user.username} precisa de ajuda` })).toBeVisible();
    await expect(position(contact)).toHaveAttribute('data-lat', '38.72225');
    await expect(contact.getByRole('link', { name: 'Abrir no mapa' })).toHaveAttribute(
      'href',
      'https://maps.google.com/?q=38.72225,-9.13934',
    );

    // The sender walks about 220 m north: the contact's page follows without a reload.
    await senderContext.setGeolocation(NORTH);
    await expect(position(contact)).toHaveAttribute('data-lat', '38.72425', { timeout: 20_000 });
    await expect(contact.getByTestId('trail').locator('li')).toHaveCount(2);

    // "I'm on my way" reaches the sender's page within 3 s.
    await contact.getByLabel('O seu nome (opcional)').fill('Maria');
    await contact.getByRole('button', { name: 'Vou a caminho' }).click();
    await expect(contact.getByTestId('ack-sent')).toBeVisible();
    await expect(sender.getByTestId('responders')).toContainText('Maria vai a caminho', { timeout: 3000 });

    // "I'm safe", confirmed, with the all-clear: tracking stops and the live page turns resolved.
    await sender.getByRole('button', { name: 'Estou em segurança' }).click();
    await expect(sender.getByLabel('Avisar os contactos por SMS de que estou bem')).toBeChecked();
    await sender.getByRole('button', { name: 'Sim, estou em segurança' }).click();
    await expect(sender.getByTestId('resolved')).toContainText('Alerta terminado');
    await expect(contact.getByTestId('live-state')).toHaveAttribute('data-state', 'resolved', { timeout: 10_000 });
    await expect(contact.getByRole('heading', { name: `${user.username} está em segurança` })).toBeVisible();
    await expect(position(contact)).toHaveCount(0);
    await expect
      .poll(async () => (await smsTo(server.url, user)).map((m) => m.body), { timeout: 10_000 })
      .toContainEqual(`Alerta: ${user.username} está em segurança. O alerta terminou.`);
    expect((await smsTo(server.url, user)).filter((m) => m.body.includes('segurança'))).toHaveLength(1);

    // Where the app's service worker already runs, the live link still opens the live page, not the app.
    await expect.poll(() => sender.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    const again = await senderContext.newPage();
    await again.goto(link);
    await expect(again.getByTestId('live-state')).toHaveAttribute('data-state', 'resolved');
  } finally {
    await senderContext.close();
    await contactContext.close();
  }
});

test('a position update made offline is queued and reaches the live page when the network returns', async ({
  browser,
  server,
}) => {
  const user = await seedUser(server.url, {
    countdownSeconds: 0,
    contacts: [{ name: 'Maria Silva', phone_number: '+351915000003' }],
  });
  const link = await startLink(server.port);
  const { senderContext, contactContext, sender } = await sendFromLink(browser, link.url, server.url, user);
  try {
    await sender.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
    await expect.poll(async () => (await smsTo(server.url, user)).length, { timeout: 10_000 }).toBe(1);
    const contact = await contactContext.newPage();
    await contact.goto(liveLinkIn((await smsTo(server.url, user))[0]?.body));
    await expect(position(contact)).toHaveAttribute('data-lat', '38.72225');

    link.down();
    await senderContext.setOffline(true);
    await senderContext.setGeolocation(NORTH);
    // The update is due 10 s after the alert at the latest: made offline, the service worker queues it.
    await expect.poll(() => queuedPositionUpdates(sender), { timeout: 15_000 }).toBe(1);
    await expect(position(contact)).toHaveAttribute('data-lat', '38.72225');

    link.up();
    await senderContext.setOffline(false);
    // From the queue, well before the next 30-second update would bring it.
    await expect(position(contact)).toHaveAttribute('data-lat', '38.72425', { timeout: 8000 });
  } finally {
    await senderContext.close();
    await contactContext.close();
    await link.close();
  }
});
