import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DailyReminderData } from '../common/push';
import { onReminderClick, showReminder } from './push';

const TOKEN = 'b'.repeat(32);
const data: DailyReminderData = {
  kind: 'daily-reminder',
  token: TOKEN,
  url: `https://alerta.test/public/${TOKEN}/#checkin`,
  language: 'en',
};

const worker = globalThis as unknown as { registration: unknown; clients: unknown };
const shown: { title: string; options: NotificationOptions & { actions?: { action: string; title: string }[] } }[] = [];
const opened: string[] = [];
const workerFetch = vi.fn(async () => new Response(null, { status: 200 }));

beforeEach(() => {
  workerFetch.mockClear();
  vi.stubGlobal('fetch', workerFetch);
  shown.length = 0;
  opened.length = 0;
  worker.registration = { showNotification: async (title: string, options: never) => shown.push({ title, options }) };
  worker.clients = { matchAll: async () => [], openWindow: async (url: string) => opened.push(url) };
});
afterEach(() => {
  vi.unstubAllGlobals();
  delete (worker as { registration?: unknown }).registration;
  delete (worker as { clients?: unknown }).clients;
});

// The worker cannot read the page's device key: "I'm OK" opens the page, never the countdown.
describe('the daily check-in reminder', () => {
  it('shows "I’m OK" in the owner’s language, one notification at a time, kept until acted on', async () => {
    await showReminder({ title: 'Are you OK today?', body: 'It is time for your daily check-in.', data });
    expect(shown).toHaveLength(1);
    expect(shown[0]?.options).toMatchObject({ tag: 'daily-checkin', requireInteraction: true, data });
    expect(shown[0]?.options.actions).toEqual([{ action: 'ok', title: 'I’m OK' }]);
    await showReminder({ title: 'Está tudo bem hoje?', body: '…', data: { ...data, language: 'pt' } });
    expect(shown[1]?.options.actions).toEqual([{ action: 'ok', title: 'Estou bem' }]);
  });

  it('a tap or "I’m OK" opens the emergency page as a reminder (no countdown), same origin only, sending nothing itself', async () => {
    await onReminderClick({ ...data, url: `https://elsewhere.test/public/${TOKEN}/` });
    expect(opened).toEqual([`/public/${TOKEN}/#checkin`]);
    expect(workerFetch).not.toHaveBeenCalled();
  });
});
