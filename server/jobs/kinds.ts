import type { Config } from '../config.js';
import {
  CALL_MAX_ATTEMPTS,
  JOB_MAX_ATTEMPTS,
  SMS_MAX_ATTEMPTS,
  SMS_MAX_RETRY_MS,
  SMS_RETRY_MS,
} from '../lib/reliability.js';
import { HOUR, MINUTE } from '../lib/time.js';
import type { KindSettings } from './types.js';

/** What the registry says of one kind: how the engine runs it, and where its handler is. */
export interface KindEntry extends Omit<KindSettings, 'concurrency'> {
  /** The module (under server/) that defines the handler; its feature's plugin registers it. */
  module: string;
  /** Its own places per process; a function of the server's settings when they set it. */
  concurrency?: number | ((config: Pick<Config, 'SMS_CONCURRENCY'>) => number);
}

/**
 * Every kind of job the server runs, in one list, as graphile-worker's task list and Immich's job
 * names are: the module of its handler, its own places per process (without, it shares the
 * engine's batch), the runs a job gets before it is parked as failed, its backoff when it has its
 * own, and what its feature's hooks do (`permanent`, `parked`: registered with the handler). A
 * recurring kind has its interval (`every`). The kind is the string stored in each job row:
 * renaming one strands the rows already written.
 *
 * `enqueue` takes only these kinds. A process refuses to start when a handler is registered for a
 * kind not listed here, or twice, or when a kind here has none (but for `onlyWhen`), and says at
 * start which rows of the database no handler of it knows (`/metrics` too, `alerta_jobs_unknown_kind`).
 */
export const JOB_KINDS = {
  /** One SMS; subject: its delivery. */
  sms: {
    module: 'features/alerts/dispatcher.ts',
    concurrency: (config) => config.SMS_CONCURRENCY,
    attempts: SMS_MAX_ATTEMPTS,
    retry: { firstMs: SMS_RETRY_MS, mostMs: SMS_MAX_RETRY_MS },
    permanent: 'the provider refuses the number or the text for good',
    parked: 'the delivery is marked failed',
  },
  /** The owner's e-mail about a real alert, written with it; subject: the alert. */
  'owner-alert-mail': { module: 'features/alerts/owner-mail.ts', attempts: JOB_MAX_ATTEMPTS },
  /** The summary of an e-mail burst; subject: the burst (mail_bursts). */
  'mail-summary': { module: 'features/accounts/mail-summaries.ts', attempts: JOB_MAX_ATTEMPTS },
  'mail-bursts-prune': { module: 'features/accounts/mail-bursts-repository.ts', every: HOUR },
  /** A check-in's deadline, its grace, its duress alert; subject: the check-in. */
  checkin: { module: 'features/checkins/jobs.ts', attempts: JOB_MAX_ATTEMPTS },
  /** The reminder of an overdue check-in, written with its overdue mark; subject: the check-in. */
  'checkin-reminder': { module: 'features/checkins/jobs.ts', attempts: JOB_MAX_ATTEMPTS },
  /** The owner's e-mail when wrong PINs lock the check-ins; subject: the user. */
  'checkin-pin-lock': { module: 'features/checkins/pins.ts', attempts: JOB_MAX_ATTEMPTS },
  /** An owner's daily check-in: the reminder, then the alarm; subject: the user. */
  daily: { module: 'features/daily/jobs.ts', attempts: JOB_MAX_ATTEMPTS },
  /** The daily reminder, written with its reminded mark; subject: the user. */
  'daily-reminder': { module: 'features/daily/jobs.ts', attempts: JOB_MAX_ATTEMPTS },
  /** An alert's escalation by phone, at its `escalation_at`; subject: the alert. */
  escalation: { module: 'features/escalation/service.ts', attempts: JOB_MAX_ATTEMPTS },
  /** One escalation call; subject: the call (escalation_calls). */
  'escalation-call': { module: 'features/escalation/placement.ts', attempts: CALL_MAX_ATTEMPTS },
  /** One SMS notice (an invitation, help, "which alert?"); subject: the notice (sms_notices). */
  'sms-notice': {
    module: 'features/sms-replies/notices.ts',
    attempts: JOB_MAX_ATTEMPTS,
    parked: 'the notice is marked failed with the last reason',
  },
  /** The owners' e-mail when a contact says STOP; subject: the owner's contact. */
  'contact-opt-out-mail': { module: 'features/sms-replies/opt-out-mail.ts', attempts: JOB_MAX_ATTEMPTS },
  'sms-inbound-prune': { module: 'features/sms-replies/repository.ts', every: HOUR },
  'live-history-cleanup': { module: 'features/live/index.ts', every: HOUR },
  'sms-usage-report': {
    module: 'features/billing/usage.ts',
    every: MINUTE,
    onlyWhen: 'payments go to a real provider (the simulated one has no meter)',
  },
} as const satisfies Record<string, KindEntry>;

/** The kind of a job: one of the registry's. */
export type JobKind = keyof typeof JOB_KINDS;

/** Every kind of the registry. */
export const jobKindNames = Object.keys(JOB_KINDS) as JobKind[];

/** The registry's settings for a process with these server settings. */
export function kindSettings(config: Pick<Config, 'SMS_CONCURRENCY'>): Record<JobKind, KindSettings> {
  const settings = {} as Record<JobKind, KindSettings>;
  for (const kind of jobKindNames) {
    const { module: _, concurrency, ...rest }: KindEntry = JOB_KINDS[kind];
    settings[kind] = {
      ...rest,
      ...(concurrency === undefined
        ? {}
        : { concurrency: typeof concurrency === 'number' ? concurrency : concurrency(config) }),
    };
  }
  return settings;
}
