import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../lib/errors.js';

/**
 * Counts events per key in a sliding window on the app clock: login failures per
 * account, reset and resend requests per address. Kept in this process's memory; the
 * per-IP limits in front of these routes use the shared rate limiter.
 */
export class WindowCounter {
  private readonly events = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly windowMs: number,
    private readonly max: number,
    /** Off (never blocks) when rate limits are lifted for benchmarks. */
    private readonly enabled = true,
  ) {}

  private recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    const list = (this.events.get(key) ?? []).filter((at) => at > since);
    if (list.length) this.events.set(key, list);
    else this.events.delete(key);
    return list;
  }

  /** Seconds until the key may try again, or 0 when it is not blocked. */
  retryAfter(key: string): number {
    if (!this.enabled) return 0;
    const list = this.recent(key);
    if (list.length < this.max) return 0;
    const oldest = list[list.length - this.max] ?? this.now();
    return Math.max(1, Math.ceil((oldest + this.windowMs - this.now()) / 1000));
  }

  record(key: string): void {
    const list = this.recent(key);
    list.push(this.now());
    this.events.set(key, list);
    // Bounded memory under a flood of distinct keys: drop the stale ones now and then.
    if (this.events.size > 10_000) for (const k of [...this.events.keys()]) this.recent(k);
  }

  clear(key: string): void {
    this.events.delete(key);
  }
}

/** A 429 with Retry-After, in the shape the rate limiter answers with. */
export const throttled = (seconds: number) =>
  new ApiError(
    429,
    { detail: `Request was throttled. Try again in ${seconds} seconds.`, code: 'throttled', retry_after: seconds },
    { 'retry-after': String(seconds) },
  );

/** Throws a 429 when the key is over its limit; otherwise counts this request. */
export function take(counter: WindowCounter, key: string): void {
  const wait = counter.retryAfter(key);
  if (wait > 0) throw throttled(wait);
  counter.record(key);
}

const MINUTE = 60_000;

/** The account-level counters of one app instance. */
export function createThrottles(app: FastifyInstance) {
  const now = () => app.clock.now();
  const enabled = !app.config.BENCH_NO_RATE_LIMIT;
  return {
    /** 5 failed logins in 15 minutes per (identifier, client address): one address never locks the owner out elsewhere. */
    loginFailures: new WindowCounter(now, 15 * MINUTE, 5, enabled),
    /** 20 failed logins in an hour per identifier from all addresses together turn on the slow back-off… */
    loginFailuresAnywhere: new WindowCounter(now, 60 * MINUTE, 20, enabled),
    /** …one try per identifier every 30 seconds, from anywhere, while it lasts. */
    loginBackoff: new WindowCounter(now, 30_000, 1, enabled),
    /** 5 reset requests an hour per address. */
    resetByAddress: new WindowCounter(now, 60 * MINUTE, 5, enabled),
    /** 5 verification resends an hour per address. */
    resendByAddress: new WindowCounter(now, 60 * MINUTE, 5, enabled),
  };
}
export type Throttles = ReturnType<typeof createThrottles>;
