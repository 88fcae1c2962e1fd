import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Dialect } from '../db/index.js';
import type { Database, User } from '../db/schema.js';
import type { Dispatcher } from '../features/alerts/dispatcher.js';
import type { JobKind, Jobs } from '../jobs/index.js';
import type { TokenService } from '../plugins/auth.js';
import type { MailPort } from '../providers/mail/port.js';
import type { PaymentsPort } from '../providers/payments/port.js';
import type { PushPort } from '../providers/push/port.js';
import type { VoicePort } from '../providers/voice/port.js';
import type { Background } from './background.js';
import type { Clock } from './clock.js';

/**
 * Everything a service may depend on, each by its own type. A service names exactly what it
 * uses, `Pick<Deps, 'db' | 'clock'>` or a type made from it, and never takes the Fastify app
 * or a request. The app carries each of these under the same name (its decorators), so a route
 * may pass `app` as it is or build the object; a test may hand a service plain values.
 */
export interface Deps {
  /** The database; a service opens the transactions it needs on it. */
  db: Kysely<Database>;
  /** Which database runs (locking differs: advisory locks on PostgreSQL). */
  dialect: Dialect;
  clock: Clock;
  config: Config;
  log: Pick<FastifyBaseLogger, 'debug' | 'warn' | 'error'>;
  mail: MailPort;
  payments: PaymentsPort;
  /** Web Push to the owner's browsers. */
  push: PushPort;
  /** Voice calls to contacts when nobody answers an alert. */
  voice: VoicePort;
  /** Signs and checks the session tokens, and derives secrets from the server's. */
  tokens: TokenService;
  /** The user and session an `Authorization: Bearer <access>` header names while both are live; else null. */
  liveSession(authorization: string | undefined): Promise<{ user: User; sessionId: string } | null>;
  /** Runs work after the answer has gone (lib/background.ts). */
  background: Pick<Background, 'run' | 'signal'>;
  /**
   * The process's SMS, jobs of its engine (features/alerts/dispatcher.ts): woken to send what was
   * just queued, or claiming for this process the SMS a transaction writes (`claimAtWrite`).
   */
  dispatcher: Pick<Dispatcher, 'kick' | 'claimAtWrite'>;
  /**
   * Runs the jobs due now (server/jobs/), after a commit that enqueued one due at once: in the
   * background, or awaited; the process's engine also claims for itself jobs a transaction
   * writes (`claimAtWrite`), run right after its commit.
   */
  jobs: Pick<Jobs<JobKind>, 'kick' | 'runDue'> & Partial<Pick<Jobs<JobKind>, 'claimAtWrite'>>;
  /** Tells the open live streams (features/live/hub.ts) that an alert changed. */
  liveHub: { publish(alertId: string): void };
}
