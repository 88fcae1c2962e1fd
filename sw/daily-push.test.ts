import 'fake-indexeddb/auto';
import { createStore, del, set } from 'idb-keyval';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEVICE_KEY_HEADER, DEVICE_KEY_STORAGE_KEY } from '../common/constants';
import { type DailyReminderData, DEVICE_KEY_DB } from '../common/push';

// The alert queue as IndexedDB keeps it (as in alert-queue.test.ts): what the worker queued.
const queued = vi.hoisted(() => [] as { request: Request }[]);
vi.mock('workbox-background-sync', () => ({
  Queue: class {
    async shiftRequest() {
      return undefined;
    }
    async pushRequest(entry: { request: Request }) {
      queued.push(entry);
    }
    async getAll() {
      return [...queued];
    }
  },
}));
vi.mock('workbox-routing', () => ({ registerRoute: () => undefined }));

const { checkInFromNotification, onReminderClick, showReminder } = await import('./push');

const TOKEN = 'b'.repeat(32);
const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';
const data: DailyReminderData = {
  kind: 'daily-reminder',
  token: TOKEN,
  url: `https://alerta.test/public/${TOKEN}/#daily`,
  language: 'en',
};

type Shown = { title: string; options: NotificationOptions & { actions?: { action: string; title: string }[] } };
const worker = globalThis as unknown as { registration: unknown; clients: unknown };
const shown: Shown[] = [];
const opened: string[] = [];
/** What the worker sends itself: answered with `answer` (a status, no network, or no answer until given up on). */
let answer: number | 'offline' | 'silent' = 200;
const workerFetch = vi.fn(async (_request: Request, init?: RequestInit) => {
  if (answer === 'offline') throw new TypeError('Failed to fetch');
  if (answer === 'silent')
    return new Promise<Response>((_resolve, reject) =>
      init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
    );
  return new Response(JSON.stringify({ status: 'waiting' }), { status: answer });
});
/** The registration as the worker sees it; `sync` where the browser has Background Sync (Chromium). */
const registration = (sync: boolean) => ({
  showNotification: async (title: string, options: never) => shown.push({ title, options }),
  ...(sync ? { sync: {} } : {}),
});
const sent = () => workerFetch.mock.calls.map(([request]) => request);

// The page's copy of its device key, as src/lib/device-key.ts mirrors it (tested there).
const mirror = createStore(DEVICE_KEY_DB.database, DEVICE_KEY_DB.store);
const forgetDeviceKey = () => del(DEVICE_KEY_STORAGE_KEY, mirror);

beforeEach(async () => {
  answer = 200;
  queued.length = 0;
  workerFetch.mockClear();
  vi.stubGlobal('fetch', workerFetch);
  shown.length = 0;
  opened.length = 0;
  worker.registration = registration(true);
  worker.clients = { matchAll: async () => [], openWindow: async (url: string) => opened.push(url) };
  // The page signed in on this phone: its key, mirrored where the worker reads it.
  await set(DEVICE_KEY_STORAGE_KEY, { key: KEY, user: 'ana' }, mirror);
});
afterEach(async () => {
  vi.unstubAllGlobals();
  delete (worker as { registration?: unknown }).registration;
  delete (worker as { clients?: unknown }).clients;
  await forgetDeviceKey();
});

const ON_THE_BUTTON = `/public/${TOKEN}/#daily`;

describe('the daily check-in reminder', () => {
  it('shows "I’m OK" in the owner’s language, one notification at a time, kept until acted on', async () => {
    await showReminder({ title: 'Are you OK today?', body: 'It is time for your daily check-in.', data });
    expect(shown).toHaveLength(1);
    expect(shown[0]?.options).toMatchObject({ tag: 'daily-checkin', requireInteraction: true, data });
    expect(shown[0]?.options.actions).toEqual([{ action: 'ok', title: 'I’m OK' }]);
    await showReminder({ title: 'Está tudo bem hoje?', body: '…', data: { ...data, language: 'pt' } });
    expect(shown[1]?.options.actions).toEqual([{ action: 'ok', title: 'Estou bem' }]);
  });

  it('"I’m OK" checks in from the notification with the page’s device key, and says it did', async () => {
    const before = Date.now();
    await onReminderClick(data, 'ok');
    expect(sent()).toHaveLength(1);
    const request = sent()[0] as Request;
    expect(new URL(request.url).origin).toBe(self.location.origin);
    expect(new URL(request.url).pathname).toBe(`/api/emergency/public/${TOKEN}/daily/ok/`);
    expect(request.method).toBe('POST');
    expect(request.headers.get(DEVICE_KEY_HEADER)).toBe(KEY);
    const { at } = (await request.clone().json()) as { at: string };
    expect(Date.parse(at)).toBeGreaterThanOrEqual(before);
    expect(request.headers.get('idempotency-key')).toBe(`daily-ok-${at}`);
    expect(opened).toEqual([]);
    expect(queued).toEqual([]);
    // The reminder gives way to a confirmation, in the owner's language, without a sound.
    expect(shown).toEqual([{ title: 'Checked in. Thank you!', options: { tag: 'daily-checkin', silent: true } }]);
    await onReminderClick({ ...data, language: 'pt' }, 'ok');
    expect(shown[1]?.title).toBe('Check-in feito. Obrigado!');
  });

  it('offline or with the server down, "I’m OK" waits in the queue with the time it was tapped (Background Sync sends it)', async () => {
    answer = 'offline';
    await onReminderClick(data, 'ok');
    // A later tap (its key is its time: one in the same millisecond is the same tap, queued once).
    await new Promise((resolve) => setTimeout(resolve, 5));
    answer = 503;
    await onReminderClick({ ...data, language: 'pt' }, 'ok');
    expect(queued).toHaveLength(2);
    for (const { request } of queued) {
      expect(request.headers.get(DEVICE_KEY_HEADER)).toBe(KEY);
      const { at } = (await request.clone().json()) as { at: string };
      expect(request.headers.get('idempotency-key')).toBe(`daily-ok-${at}`);
    }
    expect(shown.map((n) => n.title)).toEqual([
      'Check-in saved: it goes when the network returns, with the time you tapped.',
      'Check-in guardado: é enviado quando a rede voltar, com a hora em que tocou.',
    ]);
    expect(opened).toEqual([]);
  });

  it('with no key on this phone, "I’m OK" opens the page on its button and sends nothing', async () => {
    await forgetDeviceKey();
    await onReminderClick(data, 'ok');
    expect(workerFetch).not.toHaveBeenCalled();
    expect(opened).toEqual([ON_THE_BUTTON]);
    expect(shown).toEqual([]);
  });

  it('a key the server refuses (403) opens the page on its button, nothing shown as done', async () => {
    answer = 403;
    await onReminderClick(data, 'ok');
    expect(sent()).toHaveLength(1);
    expect(opened).toEqual([ON_THE_BUTTON]);
    expect(shown).toEqual([]);
    expect(queued).toEqual([]);
  });

  it('a tap on the notification opens the page on "I’m OK today", same origin only, sending nothing', async () => {
    await onReminderClick(data);
    await onReminderClick({ ...data, url: `https://elsewhere.test/public/${TOKEN}/` }, '');
    expect(opened).toEqual([ON_THE_BUTTON, ON_THE_BUTTON]);
    expect(workerFetch).not.toHaveBeenCalled();
  });
});

describe('the daily reminder where the worker cannot finish on its own', () => {
  it('a server that does not answer in time: "I’m OK" is queued and the owner told so', async () => {
    answer = 'silent';
    const started = Date.now();
    await checkInFromNotification(data, 50);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(sent()).toHaveLength(1);
    expect(queued).toHaveLength(1);
    expect(queued[0]?.request.headers.get(DEVICE_KEY_HEADER)).toBe(KEY);
    expect(shown.map((n) => n.title)).toEqual([
      'Check-in saved: it goes when the network returns, with the time you tapped.',
    ]);
  });

  it('without Background Sync, the saved tap says to open Alerta when back online, in English and Portuguese', async () => {
    worker.registration = registration(false);
    answer = 'offline';
    await onReminderClick(data, 'ok');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await onReminderClick({ ...data, language: 'pt' }, 'ok');
    expect(queued).toHaveLength(2);
    expect(shown.map((n) => n.title)).toEqual([
      'Check-in saved: open Alerta when you are back online to send it, with the time you tapped.',
      'Check-in guardado: abra o Alerta quando tiver rede para o enviar, com a hora em que tocou.',
    ]);
  });

  it('a page the browser no longer lets it open (a late answer): a notification whose tap opens it', async () => {
    answer = 403;
    let late = true;
    worker.clients = {
      matchAll: async () => [],
      openWindow: async (url: string) => {
        if (late) throw new TypeError('Not allowed to open a window.');
        opened.push(url);
      },
    };
    await onReminderClick({ ...data, owner: 'owner-a' }, 'ok');
    expect(opened).toEqual([]);
    expect(shown).toEqual([
      {
        title: 'Couldn’t check in — tap to open',
        options: { data: { ...data, owner: 'owner-a' }, tag: 'daily-checkin-owner-a' },
      },
    ]);
    await onReminderClick({ ...data, language: 'pt' }, 'ok');
    expect(shown[1]?.title).toBe('Não foi possível fazer o check-in — toque para abrir');
    // Its tap is a new gesture: the page opens on "I'm OK today".
    late = false;
    await onReminderClick(shown[0]?.options.data);
    expect(opened).toEqual([ON_THE_BUTTON]);
  });

  it('a tab already on the page is brought forward and asked to show "I’m OK today"', async () => {
    const posted: unknown[] = [];
    const focus = vi.fn(async () => undefined);
    worker.clients = {
      matchAll: async () => [
        { url: `https://alerta.test/public/${TOKEN}/`, focus, postMessage: (message: unknown) => posted.push(message) },
      ],
      openWindow: async (url: string) => opened.push(url),
    };
    await onReminderClick(data);
    expect(focus).toHaveBeenCalledOnce();
    expect(posted).toEqual([{ type: 'SHOW_DAILY' }]);
    expect(opened).toEqual([]);
  });

  it('a token that is not a personal token’s shape (`..`) gets nothing sent with the key', async () => {
    for (const token of ['..', '.', '../../users/me', `${'a'.repeat(20)}/..`, '%2e%2e']) {
      await onReminderClick({ ...data, token }, 'ok');
    }
    expect(workerFetch).not.toHaveBeenCalled();
    expect(queued).toEqual([]);
    expect(opened).toHaveLength(5);
  });

  it('one reminder per owner: two accounts on one browser keep one each, each replaced by its own confirmation', async () => {
    await showReminder({ title: 'Are you OK today?', body: '…', data: { ...data, owner: 'owner-a' } });
    await showReminder({ title: 'Are you OK today?', body: '…', data: { ...data, owner: 'owner-b' } });
    await onReminderClick({ ...data, owner: 'owner-b' }, 'ok');
    expect(shown.map((n) => n.options.tag)).toEqual([
      'daily-checkin-owner-a',
      'daily-checkin-owner-b',
      'daily-checkin-owner-b',
    ]);
    expect(shown[2]?.title).toBe('Checked in. Thank you!');
  });
});
