import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Fix, GeoState, PositionWatch } from './geo';
import { ownerAskedToSignIn, resetAskedToSignIn } from './owner-proof-asked';
import { LiveTracker } from './tracking';

const LISBON: Fix = { latitude: 38.72225, longitude: -9.13934, accuracy: 10, captured_at: '2026-03-01T14:00:00Z' };

/** A watch that always has Lisbon. */
const watch = {
  state: { fix: LISBON, error: null } satisfies GeoState,
  start() {},
  subscribe: () => () => undefined,
} as unknown as PositionWatch;

describe('positions on the owner’s alert from a page without its proof', () => {
  let answer: Response;
  beforeEach(() => {
    resetAskedToSignIn();
    vi.useFakeTimers({ now: Date.UTC(2026, 2, 1, 14) });
    vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('visible');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer.clone()),
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    resetAskedToSignIn();
  });

  it('says the owner must sign in, keeps going, and clears once a position is taken', async () => {
    answer = new Response(JSON.stringify({ detail: 'Only the owner can do this.', code: 'owner_proof_required' }), {
      status: 403,
    });
    const tracker = new LiveTracker('tok', 'alert-1', watch, Date.now(), null);
    tracker.start();
    // The first position goes 10 s after the alert's (none here).
    await vi.advanceTimersByTimeAsync(11_000);
    expect(tracker.state.needsOwner).toBe(true);
    expect(tracker.state.status).toBe('tracking');
    expect(ownerAskedToSignIn()).toBe(true);

    // Signed in: the next position, 30 s on, carries the key and is taken.
    answer = new Response(JSON.stringify(LISBON), { status: 201 });
    await vi.advanceTimersByTimeAsync(31_000);
    expect(tracker.state).toMatchObject({ status: 'tracking', needsOwner: false, lastSentAt: expect.any(Number) });
    tracker.stop();
  });
});
