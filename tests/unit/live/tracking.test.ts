import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Fix, GeoState, PositionWatch } from '../../../src/alert/geo';
import { LiveTracker, metresBetween } from '../../../src/alert/tracking';

const LISBON: Fix = { latitude: 38.72225, longitude: -9.13934, accuracy: 10, captured_at: '2026-03-01T14:00:00Z' };
const north = (metres: number): Fix => ({
  ...LISBON,
  latitude: LISBON.latitude + metres / 111_320,
  captured_at: new Date().toISOString(),
});

/** A position watch the test moves by hand. */
class FakeWatch {
  state: GeoState = { fix: LISBON, error: null };
  private listeners = new Set<(state: GeoState) => void>();
  start() {}
  subscribe(listener: (state: GeoState) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  move(fix: Fix) {
    this.state = { fix, error: null };
    for (const listener of this.listeners) listener(this.state);
  }
}

describe('live position sharing after an alert', () => {
  let posted: Fix[];
  let answer: number;
  let hidden: boolean;
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.UTC(2026, 2, 1, 14) });
    posted = [];
    answer = 201;
    hidden = false;
    vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => (hidden ? 'hidden' : 'visible'));
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        posted.push(JSON.parse(String(init.body)) as Fix);
        return new Response('{}', { status: answer });
      }),
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  const tracker = (watch: FakeWatch) =>
    new LiveTracker('tok', 'alert-1', watch as unknown as PositionWatch, Date.now(), LISBON);

  it('sends every 30 s while still, and within 10 s of moving more than 50 m', async () => {
    const watch = new FakeWatch();
    const t = tracker(watch);
    t.start();
    await vi.advanceTimersByTimeAsync(25_000);
    expect(posted).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(6_000);
    expect(posted).toHaveLength(1);

    watch.move(north(30)); // under 50 m: waits for the next 30 s
    await vi.advanceTimersByTimeAsync(12_000);
    expect(posted).toHaveLength(1);
    watch.move(north(120));
    await vi.advanceTimersByTimeAsync(1);
    expect(posted).toHaveLength(2);
    expect(metresBetween(LISBON, posted[1] as Fix)).toBeGreaterThan(100);
    t.stop();
  });

  it('pauses while the page is hidden and stops 60 minutes after the alert', async () => {
    const watch = new FakeWatch();
    const t = tracker(watch);
    t.start();
    hidden = true;
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(posted).toHaveLength(0);
    expect(t.state.status).toBe('paused');
    hidden = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(posted).toHaveLength(1);
    expect(t.state.status).toBe('tracking');
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(t.state.status).toBe('stopped');
    const sent = posted.length;
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(posted).toHaveLength(sent);
  });

  it('stops for good when the server says the alert is over', async () => {
    const watch = new FakeWatch();
    const t = tracker(watch);
    answer = 409;
    t.start();
    await vi.advanceTimersByTimeAsync(31_000);
    expect(posted).toHaveLength(1);
    expect(t.state.status).toBe('stopped');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(posted).toHaveLength(1);
  });
});
