import rateLimit, { type CreateRateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import { Redis } from 'ioredis';
import { Address6 } from 'ip-address';
import type { Config } from '../config.js';
import { ApiError, detailError } from '../lib/errors.js';
import { MINUTE } from '../lib/time.js';
import { fallbackStore, REDIS_CLIENT_OPTIONS, RedisLink } from './rate-limit-store.js';

const HSTS = 'max-age=31536000; includeSubDomains';
/** Public paths with a secret in them: the alert API, the emergency pages' manifests, e-mail verification, the alert e-mail's "not me" link. */
const SECRET_PATH = /^\/(api\/emergency\/public|public|test|api\/users\/verify-email|api\/users\/not-me)\//;
/** Pages and answers about one person, kept out of search engines: the API, the emergency, test and live pages, dev pages, reset links. */
const PERSONAL_PATH = /^\/(api|dev|public|test|a|reset-password-confirm)(\/|$)/;

/**
 * The path as the router sees it, without the query: `request.url` is already one spelling
 * (absolute-form, dot segments and escaped unreserved characters undone by `rewriteUrl`,
 * server/lib/request-target.ts), and is decoded here too so an escaped separator counts
 * as well. An undecodable path stays as sent.
 */
export function routedPath(url: string): string {
  const path = url.split('?')[0] ?? '';
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
/**
 * The client address as limits on strangers count it: an IPv6 address stands for its /64 (one
 * host or home network gets a whole /64, so the last 64 bits are free to change), an
 * IPv4-mapped one for its IPv4 address, as the rate limiter's own per-address keys do.
 */
export function clientAddress(request: FastifyRequest): string {
  return addressGroup(request.ip);
}

/** What `clientAddress` makes of an IP address: its /64 for IPv6, the IPv4 address of a mapped one. */
export function addressGroup(ip: string): string {
  if (!Address6.isValid(ip)) return ip;
  const address = new Address6(ip);
  if (address.is4()) return address.to4().correctForm();
  return `${new Address6(`${ip}/64`).startAddress().correctForm()}/64`;
}

/** Generous: an open emergency page polls its status every 2 s, and a household or an office may share one address. */
export const SECRET_PATH_MAX_PER_MINUTE = 600;

/** Security headers (CSP with no inline script) and the rate limiter the routes opt into. */
export default fp(
  async function security(app: FastifyInstance, options: { config: Config }) {
    // Helmet's headers, made once: the Fastify plugin makes them again for every request, the
    // alert route's too (docs/PERFORMANCE.md).
    const securityHeaders = helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          // The live page's map tiles: exactly the configured tile server's origin.
          imgSrc: ["'self'", 'data:', 'blob:', new URL(options.config.MAP_TILE_URL).origin],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          workerSrc: ["'self'"],
          manifestSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      },
      // HSTS only when the request is known to have come over TLS (see below).
      strictTransportSecurity: false,
      referrerPolicy: { policy: 'no-referrer' },
      crossOriginEmbedderPolicy: false,
    });
    app.addHook('onRequest', (request, reply, done) => securityHeaders(request.raw, reply.raw, () => done()));
    app.addHook('onSend', async (request, reply) => {
      if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
      const path = routedPath(request.url);
      if (PERSONAL_PATH.test(path)) reply.header('x-robots-tag', 'noindex');
      // API answers carry tokens, positions and personal data: never stored by a cache unless a route says so.
      if (path.startsWith('/api/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    });
    // A NUL byte in a path or query names nothing we store, and PostgreSQL refuses it in
    // text comparisons (a 500 otherwise): refuse it up front, for every route.
    app.addHook('onRequest', async (request) => {
      if (request.url.includes('%00')) throw detailError(400, 'Malformed URL.', 'bad_url');
    });

    // With REDIS_URL every process shares the counters; while Redis fails (down, or not
    // answering within 100 ms) they are counted in this process instead (rate-limit-store.ts).
    const redis = options.config.REDIS_URL ? new Redis(options.config.REDIS_URL, REDIS_CLIENT_OPTIONS) : undefined;
    const link = redis && new RedisLink(redis, app.log);
    if (redis) app.addHook('onClose', async () => void redis.disconnect());
    await link?.started();
    await app.register(rateLimit, {
      global: false,
      ...(link ? { store: fallbackStore(link, 'alerta-rl:') } : {}),
      skipOnError: true,
      errorResponseBuilder: (_request, context) => ({
        statusCode: context.statusCode,
        code: 'FST_ERR_RATE_LIMITED',
        message: `Request was throttled. Try again in ${Math.ceil(context.ttl / 1000)} seconds.`,
        retryAfterSeconds: Math.ceil(context.ttl / 1000),
      }),
    });

    // Routes whose path carries a secret (alert tokens, verification keys) are limited per
    // token by their features; this ceiling per client address also stops one client from
    // trying token after token, each of which would otherwise get a fresh counter.
    if (!options.config.BENCH_NO_RATE_LIMIT) {
      const perClient = app.createRateLimit({ max: SECRET_PATH_MAX_PER_MINUTE, timeWindow: MINUTE });
      app.addHook('onRequest', async (request) => {
        if (!SECRET_PATH.test(routedPath(request.url))) return;
        const result = await perClient(request);
        if (result.isAllowed || !result.isExceeded) return;
        // A route may let through a request whose proof it verifies (the owner's alert): never a header alone.
        const pass = request.routeOptions.config.passesCeiling;
        if (pass && (await pass(request))) return;
        throw throttled(result.ttlInSeconds);
      });
    }
  },
  { name: 'security' },
);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** True for a request the per-address ceiling must let through: one whose proof the route has verified. */
    passesCeiling?: (request: FastifyRequest) => Promise<boolean>;
  }
}

export interface LimitOptions {
  max: number;
  /** Window in milliseconds. */
  timeWindow: number;
  /** What the limit counts by; the client IP when omitted. */
  keyGenerator?: (request: FastifyRequest) => string | Promise<string>;
}

/**
 * Route-level rate-limit config (`{ config: { rateLimit: limit(app, ...) } }`);
 * lifted entirely when BENCH_NO_RATE_LIMIT is set for benchmarks.
 */
export function limit(app: FastifyInstance, options: LimitOptions): false | Record<string, unknown> {
  if (app.config.BENCH_NO_RATE_LIMIT) return false;
  return { ...options };
}

/** A 429 with Retry-After, in the shape the rate limiter answers with. */
export function throttled(ttlInSeconds: number): ApiError {
  const seconds = Math.max(1, ttlInSeconds);
  return new ApiError(
    429,
    { detail: `Request was throttled. Try again in ${seconds} seconds.`, code: 'throttled', retry_after: seconds },
    { 'retry-after': String(seconds) },
  );
}

/**
 * Keys each counter keeps in this process (without Redis): enough that a flood of made-up
 * logins or addresses cannot push a live lockout out (the plugin's default is 5,000).
 */
export const COUNTER_KEYS = 200_000;

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/** What a counter needs of the app: whether limits are lifted, and the rate-limit plugin's limiters. */
export type CounterHost = { config: Pick<Config, 'BENCH_NO_RATE_LIMIT'> } & Pick<FastifyInstance, 'createRateLimit'>;

/**
 * The plugin's limiter counts requests: a counter hands it this stand-in instead, carrying the
 * key, and the empty route options the plugin looks for a group id in. Nothing else of a
 * request is read when the limiter has its own key generator, max and window.
 */
interface Counted {
  counterKey: string;
  routeOptions: { config: Record<string, never> };
}
const counted = (counterKey: string) => ({ counterKey, routeOptions: { config: {} } }) satisfies Counted;

/**
 * One counter of the rate-limit plugin, keyed by what `key` makes of what is counted (a
 * token, a typed identifier, a request), so a service can be charged without the request.
 * Its store is the plugin's: this process's memory, or Redis (shared by every process) when
 * REDIS_URL is set. Never blocks while rate limits are lifted for benchmarks.
 */
export class Counter<Subject> {
  private readonly limiter: Limiter | null;

  constructor(
    app: CounterHost,
    private readonly name: string,
    readonly max: number,
    timeWindow: number,
    private readonly key: (subject: Subject) => string,
  ) {
    // `cache` sizes this counter's own store; the plugin honours it here though its types only list it for routes.
    const options: CreateRateLimitOptions & { cache: number } = {
      max,
      timeWindow,
      cache: COUNTER_KEYS,
      keyGenerator: (request) => (request as unknown as Counted).counterKey,
    };
    this.limiter = app.config.BENCH_NO_RATE_LIMIT ? null : app.createRateLimit(options);
  }

  private async count(subject: Subject, increment: boolean) {
    const stand = counted(`${this.name}:${this.key(subject)}`) as unknown as FastifyRequest;
    return this.limiter && (await this.limiter(stand, increment ? undefined : { increment: false }));
  }

  /** How many were counted in the current window, and the seconds it has left; nothing is counted. */
  async read(subject: Subject): Promise<{ count: number; seconds: number }> {
    const state = await this.count(subject, false);
    if (!state || state.isAllowed) return { count: 0, seconds: 0 };
    return { count: state.max - state.remaining, seconds: state.ttlInSeconds };
  }

  /** Counts one; returns the count in the window, this one included. */
  async add(subject: Subject): Promise<number> {
    const state = await this.count(subject, true);
    if (!state || state.isAllowed) return 0;
    return state.isExceeded ? state.max + 1 : state.max - state.remaining;
  }

  /** Throws a 429 when the window already holds `max`; otherwise counts this one. */
  async take(subject: Subject): Promise<void> {
    const state = await this.count(subject, true);
    if (state && !state.isAllowed && state.isExceeded) throw throttled(state.ttlInSeconds);
  }
}
