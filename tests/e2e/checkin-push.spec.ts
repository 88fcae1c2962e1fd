import { randomUUID } from 'node:crypto';
import { CHECKIN_REMINDER_HASH, type PushPayload } from '../../common/push.js';
import { expect, test } from './fixtures.js';
import { pushWorkerOf } from './push-worker.js';
import { seedUser } from './seed.js';

// A check-in reminder arrives by Web Push: the service worker shows it with its two actions.
// DevTools delivers the push to the worker as a push service would (Chromium only: the other
// engines have no such hook; the notification's actions are unit-tested in sw/push.test.ts).
test('a pushed check-in reminder shows as a notification with "I\'m safe" and "Open"', async ({
  page,
  context,
  server,
}) => {
  const user = await seedUser(server.url, { language: 'en' });
  await context.grantPermissions(['notifications'], { origin: server.url });
  // Opened as a reminder opens it: no countdown, so no alert goes out (nor its live tracking)
  // while the push is under test.
  await page.goto(`/public/${user.token}/${CHECKIN_REMINDER_HASH}`);
  const worker = await pushWorkerOf(context, page, server.url);
  const started = await page.request.post(`/api/emergency/public/${user.token}/checkins/`, {
    headers: { 'idempotency-key': randomUUID() },
    data: { duration_seconds: 900 },
  });
  expect(started.status()).toBe(201);
  const checkin = (await started.json()) as { id: string };
  const payload: PushPayload = {
    title: 'are you OK?',
    body: 'Are you OK? Tap to say you are safe, or your contacts are alerted at 21:35.',
    data: {
      kind: 'checkin-reminder',
      checkin_id: checkin.id,
      url: `${server.url}/public/${user.token}/`,
      language: 'en',
    },
  };
  const shown = async () =>
    (await worker.shown()).map(({ data, ...notification }) => ({
      ...notification,
      checkin: (data as { checkin_id: string }).checkin_id,
    }));
  await worker.deliver(JSON.stringify(payload));
  await expect.poll(shown, { timeout: 5_000 }).toEqual([
    {
      title: 'are you OK?',
      body: payload.body,
      tag: `checkin-${checkin.id}`,
      requireInteraction: true,
      actions: [
        { action: 'safe', title: 'I’m safe' },
        { action: 'open', title: 'Open' },
      ],
      checkin: checkin.id,
    },
  ]);
});
