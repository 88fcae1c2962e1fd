import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckinReminderData } from '../common/push';
import { onReminderClick, showReminder } from './push';

// What the worker would send: the request handed to its send-or-queue path.
const workerSent = vi.hoisted(() => [] as Request[]);
vi.mock('./alert-queue', () => ({
  sendOrQueue: async (request: Request) => {
    workerSent.push(request);
    return new Response(null, { status: 202 });
  },
}));

const TOKEN = 'a'.repeat(32);
const data = (fields: Partial<CheckinReminderData> = {}): CheckinReminderData => ({
  kind: 'checkin-reminder',
  checkin_id: 'c1',
  token: TOKEN,
  url: `https://alerta.test/public/${TOKEN}/`,
  language: 'pt',
  pin: '0',
  ...fields,
});

const worker = globalThis as unknown as { registration: unknown; clients: unknown };
const shown: { title: string; options: NotificationOptions & { actions?: { action: string; title: string }[] } }[] = [];
const opened: string[] = [];
const focused: string[] = [];
let windows: { url: string; focus: () => Promise<void> }[] = [];

beforeEach(() => {
  workerSent.length = 0;
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

  it('"I\'m safe" ends the check-in through the queue, with one key per check-in', async () => {
    await onReminderClick('safe', data());
    expect(workerSent).toHaveLength(1);
    const [request] = workerSent;
    expect(request?.method).toBe('POST');
    expect(new URL(request?.url ?? '').pathname).toBe(`/api/emergency/public/${TOKEN}/checkins/c1/done/`);
    expect(request?.headers.get('idempotency-key')).toBe('checkin-done-c1');
    expect(await request?.text()).toBe('{}');
    expect(opened).toEqual([]);
  });

  it('"I\'m safe" with a PIN set opens the page instead (the notification cannot ask for the PIN)', async () => {
    await onReminderClick('safe', data({ pin: '1' }));
    expect(workerSent).toEqual([]);
    expect(opened).toEqual([`/public/${TOKEN}/#checkin`]);
  });

  it('"Open" and a tap on the notification open the emergency page, or focus it when open', async () => {
    await onReminderClick('open', data());
    await onReminderClick('', data());
    expect(opened).toEqual([`/public/${TOKEN}/#checkin`, `/public/${TOKEN}/#checkin`]);
    windows = [{ url: `https://alerta.test/public/${TOKEN}/`, focus: async () => void focused.push('page') }];
    await onReminderClick('open', data());
    expect(focused).toEqual(['page']);
    expect(opened).toHaveLength(2);
  });
});
