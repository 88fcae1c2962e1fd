import { beforeEach, describe, expect, it, vi } from 'vitest';
import { StorableRequest } from 'workbox-background-sync';
import { holdPressed, pressedFrom, settlePressed } from './pressed';

// What the worker would send: the request handed to its send-or-queue path.
const workerSent = vi.hoisted(() => [] as Request[]);
const handled = vi.hoisted(() => new Set<string>());
vi.mock('./alert-queue', () => ({
  sendOrQueue: async (request: Request) => {
    workerSent.push(request);
    return new Response(null, { status: 201 });
  },
  wasHandled: (key: string) => handled.has(key),
}));

const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';

beforeEach(() => {
  workerSent.length = 0;
  handled.clear();
});

describe('the service worker keeps the key', () => {
  const held = (extra: object = {}) => ({
    url: `/api/emergency/public/${'a'.repeat(20)}/alerts/`,
    key: '11111111-1111-4111-8111-111111111111',
    body: '{"mode":"real","location":null}',
    wait_ms: 0,
    ...extra,
  });

  it('a held press is sent by the worker with the page’s device key', async () => {
    const alert = pressedFrom(held({ device_key: KEY }));
    expect(alert?.device_key).toBe(KEY);
    await holdPressed(alert!);
    expect(workerSent).toHaveLength(1);
    expect(workerSent[0]?.headers.get('x-alerta-device-key')).toBe(KEY);
    expect(workerSent[0]?.headers.get('idempotency-key')).toBe('11111111-1111-4111-8111-111111111111');
  });

  it('a held press without a key (or with a malformed one) goes without the header', async () => {
    expect(pressedFrom(held({ device_key: 'bad key\r\nX-Evil: 1' }))?.device_key).toBeUndefined();
    await holdPressed(pressedFrom(held({ key: '22222222-2222-4222-8222-222222222222' }))!);
    expect(workerSent[0]?.headers.has('x-alerta-device-key')).toBe(false);
  });

  it('a queued alert is stored and replayed with its headers, the device key included', async () => {
    const request = new Request('https://alerta.test/api/emergency/public/x/alerts/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k1', 'x-alerta-device-key': KEY },
      body: '{}',
    });
    const stored = await StorableRequest.fromRequest(request);
    const replayed = stored.toRequest();
    expect(replayed.headers.get('x-alerta-device-key')).toBe(KEY);
    expect(replayed.headers.get('idempotency-key')).toBe('k1');
  });
});

describe('a press held while the page’s own POST is on its way', () => {
  const press = (key: string, body: string, waitMs: number) =>
    pressedFrom({ url: `/api/emergency/public/${'a'.repeat(20)}/alerts/`, key, body, wait_ms: waitMs })!;

  it('the page’s POST found no network: given again with no wait, it goes now, with the latest body', async () => {
    const key = '33333333-3333-4333-8333-333333333333';
    const holding = holdPressed(press(key, '{"mode":"real","location":null}', 10_000));
    const started = Date.now();
    await holdPressed(press(key, '{"mode":"real","location":{"latitude":1}}', 0));
    await holding;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(workerSent).toHaveLength(1);
    expect(await workerSent[0]?.text()).toBe('{"mode":"real","location":{"latitude":1}}');
  });

  it('the server answered the page: the worker lets go of it; handed over again after a refusal, it goes', async () => {
    const key = '44444444-4444-4444-8444-444444444444';
    const holding = holdPressed(press(key, '{"mode":"real","location":null}', 10_000));
    settlePressed(key);
    await holding;
    expect(workerSent).toEqual([]);
    // That answer was a 429; the page's retry then found no network and hands the press over:
    // it is sent or queued now, not dropped as answered.
    await holdPressed(press(key, '{"mode":"real","location":null}', 0));
    expect(workerSent).toHaveLength(1);
  });

  it('a wait that runs out after the key went through the worker (Safari, Firefox) sends nothing; a hand-over still goes', async () => {
    const key = '55555555-5555-4555-8555-555555555555';
    handled.add(key);
    await holdPressed(press(key, '{"mode":"real","location":null}', 5));
    expect(workerSent).toEqual([]);
    await holdPressed(press(key, '{"mode":"real","location":null}', 0));
    expect(workerSent).toHaveLength(1);
  });

  it('messages for the same key never hold a press past 30 s from the first, and keys that are no UUID are refused', async () => {
    vi.useFakeTimers();
    try {
      const key = '66666666-6666-4666-8666-666666666666';
      const holding = holdPressed(press(key, '{"mode":"real","location":null}', 30_000));
      await vi.advanceTimersByTimeAsync(25_000);
      void holdPressed(press(key, '{"mode":"real","location":null}', 30_000));
      await vi.advanceTimersByTimeAsync(5_000);
      await holding;
      expect(workerSent).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
    expect(
      pressedFrom({ url: `/api/emergency/public/${'a'.repeat(20)}/alerts/`, key: 'x y', body: '{}', wait_ms: 0 }),
    ).toBeNull();
  });
});
