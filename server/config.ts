import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { PLAN_CONTACT_LIMITS, PLAN_PRICES_EUR, SMS_PRICE_EUR, TRIAL_DAYS } from '../common/constants.js';
import { euros, flag, HEAP_LIMIT_MB, positiveInt, threshold, trustProxy, url, wholeNumber } from './config-fields.js';
import { keptSecret } from './lib/kept-secret.js';

/** Every setting, read from the environment once at start. docs/CONFIGURATION.md and .env.example list them. */
const schema = z.object({
  PORT: z.coerce
    .number({ message: 'must be a port number' })
    .int('must be a port number')
    .min(0, 'must be a port number (0-65535)')
    .max(65535, 'must be a port number (0-65535)')
    .default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  APP_URL: url(['http:', 'https:']).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url(['postgres:', 'postgresql:'], {
    hint: ', or leave the password out of the URL and set PGPASSWORD',
  }).optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  TRUST_PROXY: trustProxy.default(false),
  REDIS_URL: url(['redis:', 'rediss:'], { hint: '' }).optional(),
  BASIC_CONTACT_LIMIT: positiveInt('BASIC_CONTACT_LIMIT').default(PLAN_CONTACT_LIMITS.basic),
  PREMIUM_CONTACT_LIMIT: positiveInt('PREMIUM_CONTACT_LIMIT').default(PLAN_CONTACT_LIMITS.premium),
  TRIAL_DAYS: positiveInt('TRIAL_DAYS').default(TRIAL_DAYS),
  /** The prices the app and the simulated checkout show; with Stripe, its prices must say the same. */
  BASIC_PRICE_EUR: euros.default(PLAN_PRICES_EUR.basic),
  PREMIUM_PRICE_EUR: euros.default(PLAN_PRICES_EUR.premium),
  SMS_PRICE_EUR: euros.default(SMS_PRICE_EUR),
  LONG_PHONE_NUMBERS: flag.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SMTP_URL: url(['smtp:', 'smtps:'], { hint: '' }).optional(),
  MAIL_FROM: z.string().min(3).default('Alerta <no-reply@alerta.local>'),
  TWILIO_ACCOUNT_SID: z.string().min(1).optional(),
  TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
  TWILIO_FROM: z.string().min(1).optional(),
  TWILIO_MESSAGING_SERVICE_SID: z.string().min(1).optional(),
  /** The number escalation calls come from (default TWILIO_FROM): a messaging service places no calls. */
  TWILIO_VOICE_FROM: z.string().min(1).optional(),
  /** SMS handed to the provider at once by each server process. */
  SMS_CONCURRENCY: positiveInt('SMS_CONCURRENCY').default(10),
  /** Seconds an overdue check-in waits for "I'm safe" before its alert goes out. */
  CHECKIN_GRACE_SECONDS: positiveInt('CHECKIN_GRACE_SECONDS').default(300),
  /** Seconds a real alert waits for an answer before its contacts are phoned (an owner may choose their own). */
  ESCALATION_AFTER_SECONDS: positiveInt('ESCALATION_AFTER_SECONDS').default(300),
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  STRIPE_PRICE_BASIC: z.string().min(1).optional(),
  STRIPE_PRICE_PREMIUM: z.string().min(1).optional(),
  STRIPE_PRICE_SMS: z.string().min(1).optional(),
  STRIPE_SMS_METER: z.string().min(1).optional(),
  /** The live page's map tiles: one origin (the CSP allows exactly it), `{z}`, `{x}` and `{y}` in the path. */
  MAP_TILE_URL: url(['http:', 'https:'])
    .refine((v) => ['{z}', '{x}', '{y}'].every((p) => v.includes(p)) && !/^[a-z]+:\/\/[^/]*\{/i.test(v), {
      message: 'must hold {z}, {x} and {y} and name one host (no {s})',
    })
    .default('https://tile.openstreetmap.org/{z}/{x}/{y}.png'),
  /** Shown on the map, as the tile provider requires. */
  MAP_ATTRIBUTION: z.string().min(1).max(200).default('© OpenStreetMap contributors'),
  MAP_ATTRIBUTION_URL: url(['http:', 'https:']).default('https://www.openstreetmap.org/copyright'),
  /** Above these, reads and other requests get 503; an alert POST only above the OVERLOAD_ALERT_ ones. */
  OVERLOAD_EVENT_LOOP_DELAY_MS: threshold.default(1000),
  OVERLOAD_ALERT_EVENT_LOOP_DELAY_MS: threshold.default(3000),
  OVERLOAD_HEAP_USED_MB: threshold.default(Math.floor(HEAP_LIMIT_MB * 0.85)),
  OVERLOAD_ALERT_HEAP_USED_MB: threshold.default(Math.floor(HEAP_LIMIT_MB * 0.95)),
  OVERLOAD_RSS_MB: threshold.default(0),
  OVERLOAD_ALERT_RSS_MB: threshold.default(0),
  /** Client connections this process holds open at most; 0: three quarters of its open-file limit (plugins/connections.ts). */
  MAX_CONNECTIONS: wholeNumber.default(0),
  /** Client connections one address (an IPv6 /64 as one) may hold open; not counted behind TRUST_PROXY or with BENCH_NO_RATE_LIMIT. */
  CONNECTIONS_PER_ADDRESS: positiveInt('CONNECTIONS_PER_ADDRESS').default(64),
  /** Live event streams an alert may have open in each process beyond one per contact and one for the owner. */
  LIVE_EXTRA_STREAMS: wholeNumber.default(5),
  DEV_OUTBOX_PUBLIC: flag.default(false),
  /** Web Push (check-in reminders): generated once into DATA_DIR when unset. */
  VAPID_PUBLIC_KEY: z.string().optional(),
  VAPID_PRIVATE_KEY: z.string().optional(),
  /** The contact push services may write to (a mailto: or https: URL); APP_URL when unset. */
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:\/\/)\S+$/, 'must be a mailto: or https:// URL')
    .optional(),
  /** Tests only: push endpoints on loopback or private addresses, over http too. */
  PUSH_ALLOW_PRIVATE: flag.default(false),
  /** The key `/dev/outbox` asks for (`?key=`); a random one each start when unset. */
  DEV_OUTBOX_KEY: z
    .string()
    .min(16, 'must be at least 16 characters')
    .regex(/^[A-Za-z0-9._~-]+$/, 'must be letters, digits, "-", ".", "_" or "~" (it goes in a URL)')
    .optional(),
  /** The bearer token `GET /metrics` asks for; unset, the route answers 404. */
  METRICS_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable characters without spaces (it goes in a header)')
    .optional(),
  /** `production` turns the dev outbox off, whatever else is set. */
  NODE_ENV: z.string().optional(),
  /** Lifts rate limits; only for `npm run bench` and load tests. */
  BENCH_NO_RATE_LIMIT: flag.default(false),
});

export type Env = z.infer<typeof schema>;
export interface Config extends Omit<Env, 'APP_URL' | 'JWT_SECRET' | 'DEV_OUTBOX_KEY'> {
  APP_URL: string;
  JWT_SECRET?: string;
  DEV_OUTBOX_KEY: string;
}

/** Addresses only this machine can reach. */
export const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

export class ConfigError extends Error {}

/** APP_URL when it is not set: this machine, at the server's port. */
const localAppUrl = (port: number) => `http://localhost:${port}`;

/** Configs whose APP_URL is the default, which follows the port the server is bound to. */
const defaultAppUrl = new WeakSet<Config>();

/** Validates the environment; throws a ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, as in most .env files.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? 'environment');
      const value = env[name];
      const shown = value && !/SECRET|TOKEN|KEY|PASSWORD|URL/.test(name) ? ` (got "${value}")` : '';
      return `${name} ${issue.message}${shown}`;
    });
    throw new ConfigError(`Invalid configuration: ${lines.join('; ')}`);
  }
  const config = parsed.data;
  if (
    (config.TWILIO_ACCOUNT_SID || config.TWILIO_AUTH_TOKEN) &&
    !(config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN)
  ) {
    throw new ConfigError('Invalid configuration: TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN must be set together');
  }
  if (config.TWILIO_ACCOUNT_SID && !config.TWILIO_FROM && !config.TWILIO_MESSAGING_SERVICE_SID) {
    throw new ConfigError('Invalid configuration: TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID is required with Twilio');
  }
  if (config.STRIPE_SECRET_KEY) {
    for (const name of ['STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_BASIC', 'STRIPE_PRICE_PREMIUM'] as const) {
      if (!config[name]) throw new ConfigError(`Invalid configuration: ${name} is required with STRIPE_SECRET_KEY`);
    }
  }
  // An alert is the last request refused: its ceiling sits above the one for everything else.
  for (const measure of ['EVENT_LOOP_DELAY_MS', 'HEAP_USED_MB', 'RSS_MB'] as const) {
    const first = config[`OVERLOAD_${measure}`];
    const alerts = config[`OVERLOAD_ALERT_${measure}`];
    if (first > 0 && alerts > 0 && alerts <= first) {
      throw new ConfigError(
        `Invalid configuration: OVERLOAD_ALERT_${measure} (${alerts}) must be above OVERLOAD_${measure} (${first}), or 0 to never refuse an alert on it`,
      );
    }
  }
  // A hop count believes whoever connects: only a proxy may be able to connect.
  if (typeof config.TRUST_PROXY === 'number' && config.TRUST_PROXY > 0 && !LOOPBACK_HOST.test(config.HOST)) {
    throw new ConfigError(
      `Invalid configuration: TRUST_PROXY=${env.TRUST_PROXY} (a hop count) believes the X-Forwarded-For of anyone who connects, and HOST=${config.HOST} lets clients connect directly: set HOST=127.0.0.1 behind a proxy on this machine, or list the proxies' addresses in TRUST_PROXY`,
    );
  }
  const loaded: Config = {
    ...config,
    APP_URL: (config.APP_URL ?? localAppUrl(config.PORT)).replace(/\/+$/, ''),
    DEV_OUTBOX_KEY: config.DEV_OUTBOX_KEY ?? randomBytes(24).toString('base64url'),
  };
  if (!config.APP_URL) defaultAppUrl.add(loaded);
  return loaded;
}

/**
 * Once the server listens: an APP_URL left to its default names the port actually bound, which
 * with PORT=0 the system chose, so the links in SMS and e-mails reach this server. The routes
 * read APP_URL when they build a link, so they see this (Twilio's status callback address is
 * made before: Twilio needs a public APP_URL anyway). A set APP_URL (the address people use,
 * maybe through a proxy) is kept.
 */
export function settleAppUrl(config: Config, boundPort: number): void {
  if (defaultAppUrl.has(config)) config.APP_URL = localAppUrl(boundPort);
}

/**
 * Refuses provider pairings that give something away: real SMS with simulated payments (anyone
 * could "pay" at /dev/checkout and send real SMS for free), real payments with SMS only
 * captured in the dev outbox (paying customers whose alerts go nowhere), or the benchmarks'
 * switch beside either. Checked at start.
 */
export function checkProviders(config: Config): void {
  const realSms = Boolean(config.TWILIO_ACCOUNT_SID);
  const realPayments = Boolean(config.STRIPE_SECRET_KEY);
  // The benchmarks' switch lifts every limit and SMS budget: never where the sends are real.
  if (config.BENCH_NO_RATE_LIMIT && (realSms || realPayments)) {
    throw new ConfigError(
      'Refusing to start: BENCH_NO_RATE_LIMIT lifts every rate limit and SMS budget, for benchmarks only; remove it where Twilio or Stripe is set',
    );
  }
  if (realSms && !realPayments) {
    throw new ConfigError(
      'Refusing to start: Twilio sends real SMS but payments are simulated (set STRIPE_SECRET_KEY and its settings, or remove the Twilio settings)',
    );
  }
  if (realPayments && !realSms) {
    throw new ConfigError(
      'Refusing to start: Stripe takes real payments but SMS only go to the dev outbox (set TWILIO_ACCOUNT_SID and its settings, or remove the Stripe settings)',
    );
  }
}

/**
 * The JWT signing secret: JWT_SECRET when set, otherwise a strong random secret
 * generated on first start and kept in DATA_DIR/jwt-secret.
 */
export function resolveJwtSecret(config: Config): string {
  if (config.JWT_SECRET) return config.JWT_SECRET;
  return keptSecret(config.DATA_DIR, 'jwt-secret', {
    read: (text) => (text.trim().length >= 32 ? text.trim() : null),
    make: () => randomBytes(48).toString('base64url'),
    write: (secret) => secret,
  });
}
