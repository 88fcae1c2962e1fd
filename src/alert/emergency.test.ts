import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FIRST_FIX_WAIT_MS, PRESS_HOLD_MARGIN_MS } from '../../common/constants';
import type { PageData } from './api';
import { Emergency } from './emergency';
import { PositionWatch } from './geo';
import { loadAlert, loadPage, saveAlert, savePage } from './storage';

const page = (countdown: number): PageData => ({
  owner_name: 'Ana',
  language: 'pt',
  gps_enabled: true,
  countdown_seconds: countdown,
  contacts: [{ name: 'Rui', phone_number: '+351912345678' }],
  messages: { real: 'EMERGÊNCIA', test: 'TESTE' },
});
const alertResult = {
  id: 'a1',
  mode: 'real',
  created_at: 1,
  deliveries: [{ contact_name: 'Rui', status: 'delivered' }],
};
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

let token = '';
let posts: { key: string | null; storedFirst: boolean }[] = [];
let postAnswers: Response[] = [];

beforeEach(() => {
  token = `t${Math.random().toString(36).slice(2)}`;
  posts = [];
  postAnswers = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (init?.method === 'POST') {
        const key = new Headers(init.headers).get('idempotency-key');
        posts.push({ key, storedFirst: (await loadAlert(token))?.key === key });
        return postAnswers.shift() ?? json(201, alertResult);
      }
      if (url.includes('/alerts/')) return json(200, alertResult);
      return json(200, page(3));
    }),
  );
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/**
 * The page's timers on a clock the test runs forward. IndexedDB (fake-indexeddb) schedules its
 * work with setImmediate, left real so the page's storage still answers.
 */
const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });

const settle = (emergency: Emergency, phase: string) =>
  vi.waitFor(() => expect(emergency.state.phase.name).toBe(phase), { timeout: 3000 });

describe('emergency page life', () => {
  it('opened from a check-in reminder, starts no countdown and posts nothing until pressed', async () => {
    await savePage(token, page(0));
    const emergency = new Emergency(token, new PositionWatch(), true);
    await emergency.start();
    expect(emergency.state.phase).toEqual({ name: 'ready' });
    expect(posts).toEqual([]);
    await emergency.send();
    await settle(emergency, 'sent');
    expect(posts).toHaveLength(1);
  });

  it('cancelling the countdown posts nothing', async () => {
    await savePage(token, page(3));
    fakeClock();
    const emergency = new Emergency(token, new PositionWatch());
    await emergency.start();
    expect(emergency.state.phase).toEqual({ name: 'countdown', remaining: 3 });
    expect(emergency.state.page?.owner_name).toBe('Ana');
    emergency.cancel();
    // Past the whole 3-second countdown: a send would have started.
    await vi.advanceTimersByTimeAsync(4000);
    expect(emergency.state.phase.name).toBe('cancelled');
    expect(posts).toEqual([]);
  });

  it('stores the alert before posting it and says why there is no location', async () => {
    await savePage(token, page(0));
    const emergency = new Emergency(token, new PositionWatch());
    await emergency.start();
    await settle(emergency, 'sent');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.storedFirst).toBe(true);
    expect(emergency.state.alert?.body).toEqual({ mode: 'real', location: null, location_error: 'unsupported' });
  });

  it('stores the press at once, before waiting for a fix, and hands it to the worker in case the tab closes', async () => {
    const worker = { postMessage: vi.fn() };
    vi.stubGlobal('navigator', {
      ...navigator,
      serviceWorker: { controller: worker, addEventListener: () => undefined },
    });
    await savePage(token, page(0));
    // A GPS that is still searching: no fix, no error.
    const geo = new PositionWatch();
    geo.start = () => undefined;
    const emergency = new Emergency(token, geo);
    await emergency.start();
    await settle(emergency, 'sending');
    await vi.waitFor(async () => expect((await loadAlert(token))?.body.location_error).toBe('timeout'));
    const stored = await loadAlert(token);
    expect(posts).toEqual([]);
    expect(worker.postMessage).toHaveBeenCalledWith({
      type: 'ALERT_PRESSED',
      alert: {
        url: `/api/emergency/public/${token}/alerts/`,
        key: stored?.key,
        body: JSON.stringify({ mode: 'real', location: null, location_error: 'timeout' }),
        wait_ms: FIRST_FIX_WAIT_MS + PRESS_HOLD_MARGIN_MS,
      },
    });
    // The fix comes during the wait: the page sends it itself, with the same key.
    const fix = { latitude: 38.7, longitude: -9.1, accuracy: 12, captured_at: new Date().toISOString() };
    (geo as unknown as { update(state: object): void }).update({ fix, error: null });
    await settle(emergency, 'sent');
    expect(posts.map((p) => p.key)).toEqual([stored?.key]);
    expect((await loadAlert(token))?.body.location).toEqual(fix);
  });

  it('queued by the worker, then sent with the same key once the network returns', async () => {
    await savePage(token, page(0));
    postAnswers = [json(202, { code: 'queued' })];
    const emergency = new Emergency(token, new PositionWatch());
    await emergency.start();
    await settle(emergency, 'queued');
    window.dispatchEvent(new Event('online'));
    await settle(emergency, 'sent');
    expect(posts).toHaveLength(2);
    expect(posts[1]?.key).toBe(posts[0]?.key);
  });

  it('reopened with an alert pressed but never accepted: no new countdown, the same key again', async () => {
    await savePage(token, page(5));
    await saveAlert({
      key: '11111111-1111-4111-8111-111111111111',
      token,
      body: { mode: 'real', location: null, location_error: 'denied' },
      pressed_at: Date.now() - 60_000,
    });
    const emergency = new Emergency(token, new PositionWatch());
    await emergency.start();
    await settle(emergency, 'sent');
    expect(posts.map((p) => p.key)).toEqual(['11111111-1111-4111-8111-111111111111']);
  });

  it('a link refused for good stops the countdown', async () => {
    vi.stubGlobal('fetch', async () => json(404, { detail: 'unknown', code: 'not_found' }));
    await savePage(token, page(5));
    const emergency = new Emergency(token, new PositionWatch());
    await emergency.start();
    await settle(emergency, 'invalid');
  });

  it('opened with the countdown already in the HTML: goes on with it, keeps the server’s copy, fetches nothing', async () => {
    const pageFetches = vi.fn();
    vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
      if (init?.method !== 'POST') pageFetches(url);
      return json(201, alertResult);
    });
    const shell = { page: page(5), source: 'server' as const, shownAt: performance.now() - 1200 };
    const emergency = new Emergency(token, new PositionWatch(), false, { shell });
    expect(emergency.state.phase).toEqual({ name: 'countdown', remaining: 4 });
    await emergency.start();
    expect(emergency.state.phase).toEqual({ name: 'countdown', remaining: 4 });
    await vi.waitFor(async () => expect((await loadPage(token))?.data.owner_name).toBe('Ana'));
    emergency.cancel();
    expect(emergency.state.phase.name).toBe('cancelled');
    expect(pageFetches).not.toHaveBeenCalled();
    expect(posts).toEqual([]);
  });

  it('cancelled before its script ran: opens cancelled and posts nothing', async () => {
    await savePage(token, page(1));
    fakeClock();
    const emergency = new Emergency(token, new PositionWatch(), false, { cancelled: true });
    expect(emergency.state.phase.name).toBe('cancelled');
    await emergency.start();
    // Past the 1-second countdown the page would have run.
    await vi.advanceTimersByTimeAsync(2000);
    expect(emergency.state.phase.name).toBe('cancelled');
    expect(posts).toEqual([]);
  });
});
