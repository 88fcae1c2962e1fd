import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Followed, followLive } from '../../../src/live/api';

const active = (lat: number) => ({
  state: 'active',
  owner_name: 'ana',
  language: 'pt',
  created_at: '2026-03-01T14:00:00.000Z',
  resolved_at: null,
  tracking_until: '2026-03-01T15:00:00.000Z',
  position: { latitude: lat, longitude: -9.1, accuracy: 9, captured_at: '2026-03-01T14:01:00.000Z' },
  trail: [],
  responders: [],
});

describe('following a live page without server-sent events', () => {
  let answers: { status: number; body: unknown }[];
  beforeEach(() => {
    vi.useFakeTimers();
    answers = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        const next = answers.shift() ?? { status: 503, body: {} };
        return new Response(JSON.stringify(next.body), { status: next.status });
      }),
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('polls every few seconds, says when offline, and stops once the alert has ended', async () => {
    const seen: Followed[] = [];
    answers.push({ status: 200, body: active(38.7) }, { status: 503, body: {} }, { status: 200, body: active(38.8) });
    answers.push({ status: 200, body: { state: 'ended' } });
    followLive('AbCdEfGhIjKlMnOpQrStUv', (f) => seen.push(f), { pollMs: 3000, useEvents: false });
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toEqual([{ kind: 'view', view: active(38.7) }]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(seen[1]).toEqual({ kind: 'offline' });
    await vi.advanceTimersByTimeAsync(3000);
    expect(seen[2]).toEqual({ kind: 'view', view: active(38.8) });
    await vi.advanceTimersByTimeAsync(3000);
    expect(seen[3]).toEqual({ kind: 'view', view: { state: 'ended' } });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(seen).toHaveLength(4);
    expect(fetch).toHaveBeenCalledTimes(4);
  });

  it('stops at once for a link that does not exist', async () => {
    const seen: Followed[] = [];
    answers.push({ status: 404, body: { detail: 'This live page does not exist.' } });
    followLive('nope-nope-nope-nope', (f) => seen.push(f), { pollMs: 3000, useEvents: false });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(seen).toEqual([{ kind: 'missing' }]);
  });
});
