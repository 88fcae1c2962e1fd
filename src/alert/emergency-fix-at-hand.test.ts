import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageData } from './checkin/test-fixtures';
import { Emergency } from './emergency';
import { PositionWatch } from './geo';

// An IndexedDB that takes its time over the press: the store resolves only when the test says.
const store = vi.hoisted(() => ({ release: (): void => undefined, pending: 0 }));
vi.mock('./storage', async (original) => {
  const real = await original<typeof import('./storage')>();
  return {
    ...real,
    saveAlert: async (alert: Parameters<typeof real.saveAlert>[0]) => {
      store.pending += 1;
      await new Promise<void>((resolve) => {
        store.release = resolve;
      });
      store.pending -= 1;
      return real.saveAlert(alert);
    },
  };
});

const page = pageData({ language: 'pt', countdown_seconds: 0 });
const fix = { latitude: 38.72, longitude: -9.14, accuracy: 12, captured_at: new Date().toISOString() };

afterEach(() => vi.unstubAllGlobals());

describe('a press with the position already known', () => {
  it('goes to the network at once, while it is being stored', async () => {
    const posted: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init?: RequestInit) => {
        if (init?.method === 'POST') posted.push(JSON.parse(String(init.body)));
        return new Response(JSON.stringify(init?.method === 'POST' ? { id: 'a1', deliveries: [] } : page), {
          status: init?.method === 'POST' ? 201 : 200,
          headers: { 'content-type': 'application/json' },
        });
      }),
    );
    const geo = new PositionWatch();
    geo.now = () => ({ location: fix });
    const emergency = new Emergency(`t${Math.random().toString(36).slice(2)}`, geo, true);
    const sending = emergency.send();
    await vi.waitFor(() => expect(posted).toHaveLength(1));
    // The POST went out with the fix while the store was still being written.
    expect(store.pending).toBe(1);
    expect(posted[0]).toMatchObject({ mode: 'real', location: fix });
    // The press is stored all the same: the send finishes once the store has.
    store.release();
    await expect(sending).resolves.toBeUndefined();
  });
});
