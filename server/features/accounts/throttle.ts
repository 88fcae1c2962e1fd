import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../lib/errors.js';
import { MINUTE } from '../../lib/time.js';

/** A 429 with Retry-After, in the shape the rate limiter answers with. */
export const throttled = (seconds: number) =>
  new ApiError(
    429,
    { detail: `Request was throttled. Try again in ${seconds} seconds.`, code: 'throttled', retry_after: seconds },
    { 'retry-after': String(seconds) },
  );

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * One counter of the rate-limit plugin, keyed by what `key` reads from the request. Its
 * store is the plugin's: this process's memory, or Redis (shared by every process) when
 * REDIS_URL is set. Never blocks while rate limits are lifted for benchmarks.
 */
export class Counter {
  private readonly limiter: Limiter | null;

  constructor(
    app: FastifyInstance,
    name: string,
    readonly max: number,
    timeWindow: number,
    key: (request: FastifyRequest) => string,
  ) {
    this.limiter = app.config.BENCH_NO_RATE_LIMIT
      ? null
      : app.createRateLimit({ max, timeWindow, keyGenerator: (request) => `${name}:${key(request)}` });
  }

  /** How many were counted in the current window, and the seconds it has left; nothing is counted. */
  async read(request: FastifyRequest): Promise<{ count: number; seconds: number }> {
    const state = this.limiter && (await this.limiter(request, { increment: false }));
    if (!state || state.isAllowed) return { count: 0, seconds: 0 };
    return { count: state.max - state.remaining, seconds: Math.max(1, state.ttlInSeconds) };
  }

  /** Counts one; returns the count in the window, this one included. */
  async add(request: FastifyRequest): Promise<number> {
    const state = this.limiter && (await this.limiter(request));
    if (!state || state.isAllowed) return 0;
    return state.isExceeded ? state.max + 1 : state.max - state.remaining;
  }

  /** Throws a 429 when the window already holds `max`; otherwise counts this request. */
  async take(request: FastifyRequest): Promise<void> {
    const state = this.limiter && (await this.limiter(request));
    if (state && !state.isAllowed && state.isExceeded) throw throttled(Math.max(1, state.ttlInSeconds));
  }
}

/** The login identifier as typed, folded as login folds it. */
const identifierOf = (request: FastifyRequest) =>
  String((request.body as { username?: unknown } | undefined)?.username ?? '')
    .normalize('NFKC')
    .toLowerCase();
const addressOf = (request: FastifyRequest) =>
  String((request.body as { email?: unknown } | undefined)?.email ?? '').toLowerCase();

/** The account-level limits, counted by what was typed (never by account, so they tell nothing of who exists). */
export function createThrottles(app: FastifyInstance) {
  return {
    /** 5 failed logins in 15 minutes per (identifier, client address): one address never locks the owner out elsewhere. */
    loginFailures: new Counter(app, 'login-failures', 5, 15 * MINUTE, (r) => `${identifierOf(r)}|${r.ip}`),
    /** 20 failed logins in an hour per identifier from all addresses together turn on the slow back-off… */
    loginFailuresAnywhere: new Counter(app, 'login-failures-anywhere', 20, 60 * MINUTE, identifierOf),
    /** …one try per identifier every 30 seconds, from anywhere, while it lasts. */
    loginBackoff: new Counter(app, 'login-backoff', 1, 30_000, identifierOf),
    /** 5 reset requests an hour per address. */
    resetByAddress: new Counter(app, 'reset', 5, 60 * MINUTE, addressOf),
    /** 5 verification resends an hour per address. */
    resendByAddress: new Counter(app, 'resend', 5, 60 * MINUTE, addressOf),
  };
}
export type Throttles = ReturnType<typeof createThrottles>;
