import { createRequire } from 'node:module';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis, RedisOptions } from 'ioredis';

/** A Redis command that has not answered in this time counts as Redis being down (ms). */
export const REDIS_COMMAND_TIMEOUT_MS = 100;
/** While Redis is down, one request in this time tries it again (ms of the wall clock). */
export const REDIS_RETRY_EVERY_MS = 2000;
/** How long a starting server waits for Redis before counting in its own memory (ms). */
const REDIS_START_WAIT_MS = 1000;

/**
 * Client options for every Redis connection that a request may wait on: a command that gets
 * no answer fails after REDIS_COMMAND_TIMEOUT_MS, and while the connection is down a command
 * fails at once (no offline queue, no retries) instead of waiting for it; reconnects back off
 * to one every 2 s, so the client recovers on its own when Redis returns.
 */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  connectTimeout: 500,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  retryStrategy: (times: number) => Math.min(50 * 2 ** times, 2000),
};

type Callback = Parameters<FastifyRateLimitStore['incr']>[1];
/** What the plugin calls on a store (its types leave out `read`). */
interface Store {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  read(key: string, callback: Callback, timeWindow: number, max: number): void;
  child(routeOptions: object): Store;
}

// The plugin's own stores (CommonJS files it does not export by name).
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache?: number,
) => Store;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  key?: string,
) => Store;

/**
 * Whether the counters can use Redis now. A failed or timed-out command marks it down (one
 * warning); while down, counters use this process's memory and one call every
 * REDIS_RETRY_EVERY_MS (or the first after the client reconnects) tries Redis again; the
 * first that works marks it up (one info line).
 */
export class RedisLink {
  private down = false;
  private retryAt = 0;

  constructor(
    readonly client: Redis,
    private readonly log: FastifyBaseLogger,
  ) {
    client.on('error', (error: Error) => this.failed(error));
    client.on('ready', () => {
      this.retryAt = 0;
    });
  }

  /** Waits (at most a second) for the first connection, so a server started beside Redis shares its counters from the start. */
  async started(): Promise<void> {
    if (this.client.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.client.once('ready', () => resolve())),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, REDIS_START_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  /** True when this call should go to Redis: always while it is up, one call now and then while it is down. */
  shouldTry(): boolean {
    if (!this.down) return true;
    const now = Date.now();
    if (now < this.retryAt) return false;
    this.retryAt = now + REDIS_RETRY_EVERY_MS;
    return true;
  }

  failed(error: Error): void {
    this.retryAt = Date.now() + REDIS_RETRY_EVERY_MS;
    if (this.down) return;
    this.down = true;
    this.log.warn(
      { err: error },
      'Redis is unreachable: rate limits are counted in this process until it answers again',
    );
  }

  worked(): void {
    if (!this.down) return;
    this.down = false;
    this.log.info('Redis answers again: rate limits are shared again');
  }

  get isDown(): boolean {
    return this.down;
  }
}

/**
 * A rate-limit store that counts in Redis (shared by every process) and, beside it, in this
 * process's memory; while Redis fails it answers from memory, so limits stay on and no
 * request waits longer than one command timeout.
 */
class FallbackStore implements Store {
  constructor(
    private readonly link: RedisLink,
    private readonly shared: Store,
    private readonly local: Store,
  ) {}

  incr(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.run('incr', key, callback, timeWindow, max);
  }

  read(key: string, callback: Callback, timeWindow: number, max: number): void {
    this.run('read', key, callback, timeWindow, max);
  }

  child(routeOptions: object): Store {
    return new FallbackStore(this.link, this.shared.child(routeOptions), this.local.child(routeOptions));
  }

  private run(method: 'incr' | 'read', key: string, callback: Callback, timeWindow: number, max: number): void {
    if (!this.link.shouldTry()) {
      this.local[method](key, callback, timeWindow, max);
      return;
    }
    // Counted here too, so the limits of this process are already warm if Redis fails.
    let local: Parameters<Callback>[1];
    this.local[method](key, (_error, result) => (local = result), timeWindow, max);
    this.shared[method](
      key,
      (error, result) => {
        if (error || !result) {
          this.link.failed(error ?? new Error('no answer from Redis'));
          callback(null, local);
          return;
        }
        this.link.worked();
        callback(null, result);
      },
      timeWindow,
      max,
    );
  }
}

/** The `store` option of @fastify/rate-limit: Redis under `nameSpace`, this process's memory while Redis fails. */
export function fallbackStore(link: RedisLink, nameSpace: string): FastifyRateLimitStoreCtor {
  const Root = class extends FallbackStore {
    constructor(options: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      const continueExceeding = options.continueExceeding ?? false;
      const exponentialBackoff = options.exponentialBackoff ?? false;
      super(
        link,
        new RedisStore(continueExceeding, exponentialBackoff, link.client, nameSpace),
        new LocalStore(continueExceeding, exponentialBackoff),
      );
    }
  };
  return Root as unknown as FastifyRateLimitStoreCtor;
}
