import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckinReminderData } from '../common/push';
import { onReminderClick, showReminder } from './push';

const TOKEN = 'a'.repeat(32);
const data = (fields: Partial<CheckinReminderData> = {}): CheckinReminderData => ({
  kind: 'checkin-reminder',
  checkin_id: 'c1',
  url: `https://alerta.test/public/${TOKEN}/`,
  language: 'pt',
  ...fields,
});

const worker = globalThis as unknown as { registration: unknown; clients: unknown };
const shown: { title: string; options: NotificationOptions & { actions?: { action: string; title: string }[] } }[] = [];
const opened: string[] = [];
const focused: string[] = [];
let windows: { url: string; focus: () => Promise<void> }[] = [];

/** Whatever the worker would send itself. */
const workerFetch = vi.fn(async () => new Response(null, { status: 200 }));

beforeEach(() => {
  workerFetch.mockClear();
  vi.stubGlobal('fetch', workerFetch);
  shown.length = 0;
  opened.length = 0;
  focused.length = 0;
  windows = [];
  worker.registration = { showNotification: async (title: string, options: never) => shown.push({ title, options }) };
  worker.clients = {
    matchAll: async () => windows,
    openWindow: async (url: string) => opened.push(url),
  };
});
afterEach(() => {
  vi.unstubAllGlobals();
  delete (worker as { registration?: unknown }).registration;
  delete (worker as { clients?: unknown }).clients;
});

describe('check-in reminders in the service worker', () => {
  it('shows the reminder with "I\'m safe" and "Open" in the owner\'s language, kept until acted on', async () => {
    await showReminder({ title: 'está tudo bem?', body: 'Está tudo bem? Toque…', data: data() });
    await showReminder({
      title: 'are you OK?',
      body: 'Are you OK? Tap…',
      data: data({ language: 'en', checkin_id: 'c2' }),
    });
    expect(shown.map((n) => [n.title, n.options.tag, n.options.requireInteraction])).toEqual([
      ['está tudo bem?', 'checkin-c1', true],
      ['are you OK?', 'checkin-c2', true],
    ]);
    expect(shown[0]?.options.actions?.map((a) => a.title)).toEqual(['Estou bem', 'Abrir']);
    expect(shown[1]?.options.actions).toEqual([
      { action: 'safe', title: 'I’m safe' },
      { action: 'open', title: 'Open' },
    ]);
  });

  it('ignores a push that is not a reminder', async () => {
    await showReminder({ title: 'x', body: 'y', data: { kind: 'other' } as never });
    expect(shown).toEqual([]);
  });

  it('"I\'m safe" opens the page on its check-in and sends nothing itself: a PIN may be needed', async () => {
    await onReminderClick(data(), 'safe');
    await onReminderClick(data({ url: `https://elsewhere.test/public/${TOKEN}/` }), 'safe');
    expect(workerFetch).not.toHaveBeenCalled();
    expect(opened).toEqual([`/public/${TOKEN}/#checkin`, `/public/${TOKEN}/#checkin`]);
  });

  it('"Open" and a tap on the notification open the emergency page, or focus it when open', async () => {
    await onReminderClick(data());
    await onReminderClick(data());
    expect(opened).toEqual([`/public/${TOKEN}/#checkin`, `/public/${TOKEN}/#checkin`]);
    windows = [{ url: `https://alerta.test/public/${TOKEN}/`, focus: async () => void focused.push('page') }];
    await onReminderClick(data());
    expect(focused).toEqual(['page']);
    expect(opened).toHaveLength(2);
  });
});
