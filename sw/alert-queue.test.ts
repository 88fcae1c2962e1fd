import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The background-sync queue as IndexedDB keeps it: the entries outlive one Queue object.
const stored = vi.hoisted(() => [] as { request: Request }[]);
vi.mock('workbox-background-sync', () => ({
  Queue: class {
    async shiftRequest() {
      return stored.shift();
    }
    async unshiftRequest(entry: { request: Request }) {
      stored.unshift(entry);
    }
    async pushRequest(entry: { request: Request }) {
      stored.push(entry);
    }
    async getAll() {
      return [...stored];
    }
  },
}));
vi.mock('workbox-routing', () => ({ registerRoute: () => undefined }));
// What the worker tells the pages: one message per queued request that reached the server.
const told = vi.hoisted(() => [] as { key: string | null; status: number }[]);
vi.mock('./messages-out', () => ({
  broadcast: async (message: { key: string | null; status: number }) => {
    told.push({ key: message.key, status: message.status });
  },
}));

const positionUpdate = (key: string) => ({
  request: new Request(`https://alerta.test/api/emergency/public/${'t'.repeat(20)}/alerts/a1/location/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: '{"latitude":38.72425,"longitude":-9.13934,"accuracy":9}',
  }),
});

/** A fetch the test settles: each call waits for `answer` or `refuse`, in call order. */
function controlledFetch() {
  const calls: { answer(status: number): void; refuse(): void }[] = [];
  const fetch = vi.fn(
    () =>
      new Promise<Response>((resolve, reject) => {
        calls.push({
          answer: (status) => resolve(new Response('{}', { status })),
          refuse: () => reject(new TypeError('Failed to fetch')),
        });
      }),
  );
  return { fetch, calls };
}

/** Lets the worker's awaits run (queue reads, the fetch being made). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

let replayAlerts: typeof import('./alert-queue').replayAlerts;

beforeEach(async () => {
  stored.length = 0;
  told.length = 0;
  vi.resetModules();
  ({ replayAlerts } = await import('./alert-queue'));
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('replaying the queue', () => {
  it('a replay asked for while one is under way gets a pass of its own once that one fails', async () => {
    stored.push(positionUpdate('k1'));
    const { fetch, calls } = controlledFetch();
    vi.stubGlobal('fetch', fetch);

    // A pass begun while the network is still down (a page opening, a sync)...
    const early = replayAlerts([]);
    await settle();
    expect(calls).toHaveLength(1);
    // ...and the page's `online` message, which comes while it still waits for its answer.
    const onOnline = replayAlerts([]);
    calls[0]?.refuse();
    await expect(early).rejects.toThrow(/did not reach the server/);
    await settle();
    expect(calls).toHaveLength(2);
    calls[1]?.answer(201);
    await expect(onOnline).resolves.toBeUndefined();
    expect(stored).toHaveLength(0);
    expect(told).toEqual([{ key: 'k1', status: 201 }]);
  });

  it('asks made during one pass share the next pass: each queued request is sent once', async () => {
    stored.push(positionUpdate('k1'), positionUpdate('k2'));
    const { fetch, calls } = controlledFetch();
    vi.stubGlobal('fetch', fetch);

    const first = replayAlerts([]);
    await settle();
    const asks = [replayAlerts([]), replayAlerts([]), replayAlerts([])];
    calls[0]?.answer(201);
    await settle();
    calls[1]?.answer(201);
    await first;
    await Promise.all(asks);
    // The next pass found the queue empty: nothing went twice.
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(told.map((t) => t.key)).toEqual(['k1', 'k2']);
  });

  it('tries again shortly when the network refuses: `online` can come before the connection works', async () => {
    vi.useFakeTimers();
    stored.push(positionUpdate('k1'));
    const fetch = vi
      .fn<() => Promise<Response>>()
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValueOnce(new Response('{}', { status: 201 }));
    vi.stubGlobal('fetch', fetch);

    const replayed = replayAlerts([1000]);
    await vi.advanceTimersByTimeAsync(999);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(stored).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(replayed).resolves.toBeUndefined();
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(stored).toHaveLength(0);
    expect(told).toEqual([{ key: 'k1', status: 201 }]);
  });

  it('gives up after the last wait, the request still queued', async () => {
    vi.useFakeTimers();
    stored.push(positionUpdate('k1'));
    const fetch = vi.fn(() => Promise.reject(new TypeError('Failed to fetch')));
    vi.stubGlobal('fetch', fetch);

    const replayed = replayAlerts([1000, 3000]);
    const outcome = expect(replayed).rejects.toThrow(/did not reach the server/);
    await vi.advanceTimersByTimeAsync(4000);
    await outcome;
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(stored).toHaveLength(1);
    expect(told).toEqual([]);
  });

  it('a busy server is not asked again at once: the request stays queued for the next sign', async () => {
    stored.push(positionUpdate('k1'));
    const fetch = vi.fn(async () => new Response('{}', { status: 503 }));
    vi.stubGlobal('fetch', fetch);

    await expect(replayAlerts([1000, 3000])).rejects.toThrow(/answered 503/);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(stored).toHaveLength(1);
  });
});
