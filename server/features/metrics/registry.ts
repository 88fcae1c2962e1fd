import type { Kysely } from 'kysely';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../../db/schema.js';
import { readJobs } from './jobs-repository.js';
import { callsByStatus } from './repository.js';

/**
 * Every metric `GET /metrics` reports, in one registry per server (tests build many servers in
 * one process). Counters count what this process did since it started (Prometheus adds the
 * replicas up); gauges read from the database at each scrape say the same on every replica.
 * docs/OPERATIONS.md says what each means and what to alert on.
 */
export function createMetrics(source: { db: Kysely<Database>; now: () => number }) {
  const registry = new Registry();
  // Event-loop delay (nodejs_eventloop_lag_*), heap, CPU, open handles: prom-client's defaults.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });

  const alertsStored = new Counter({
    name: 'alerta_alerts_stored_total',
    help: 'Alerts stored by requests to this process (201 answers), by mode (real or test).',
    labelNames: ['mode'] as const,
    registers: [registry],
  });
  const pressToSms = new Histogram({
    name: 'alerta_press_to_sms_handed_over_seconds',
    help: 'From the SMS being stored (the press, for an alert) to the provider accepting it.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [registry],
  });
  const smsSends = new Counter({
    name: 'alerta_sms_sends_total',
    help: 'SMS handed to the provider by this process, by outcome: handed_over, failed (retried) or refused (permanent).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const smsReceipts = new Counter({
    name: 'alerta_sms_receipts_total',
    help: 'Delivery receipts received from the SMS provider, by status (sent, delivered, undelivered, failed).',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const callPlacements = new Counter({
    name: 'alerta_calls_placed_total',
    help: 'Escalation calls this process asked the provider for, by outcome: placed or failed.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const providerErrors = new Counter({
    name: 'alerta_provider_errors_total',
    help: 'Calls to a provider (sms, voice, mail) that failed.',
    labelNames: ['provider'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'alerta_http_request_duration_seconds',
    help: 'Time to answer each HTTP request, by method, route pattern (never the URL, which may hold a token) and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'alerta_rate_limited_total',
    help: 'Requests refused with 429 (rate limits), by route.',
    labelNames: ['route'] as const,
    registers: [registry],
  });

  // Read from the database once per scrape, by the first gauge collected.
  let reading: ReturnType<typeof readAll> | undefined;
  const readAll = async () => {
    const now = source.now();
    const [jobs, calls] = await Promise.all([readJobs(source.db, now), callsByStatus(source.db)]);
    return { jobs, calls };
  };
  const current = () => {
    reading ??= readAll();
    return reading;
  };
  const fromDatabase = (
    name: string,
    help: string,
    labelName: string,
    fill: (data: Awaited<ReturnType<typeof readAll>>, set: (label: string, value: number) => void) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: [labelName],
      registers: [registry],
      async collect() {
        const data = await current();
        this.reset();
        fill(data, (label, value) => this.set({ [labelName]: label }, value));
      },
    });
  fromDatabase('alerta_jobs_queued', 'Jobs not done yet, by kind (sms:<kind>, job:<kind>).', 'kind', (d, set) => {
    for (const [kind, count] of d.jobs.queued) set(kind, count);
  });
  fromDatabase('alerta_jobs_failed', 'Jobs given up on after their last attempt, by kind.', 'kind', (d, set) => {
    for (const [kind, count] of d.jobs.failed) set(kind, count);
  });
  fromDatabase(
    'alerta_jobs_oldest_due_seconds',
    'How long the longest-waiting due job of each kind has been due (0 or absent: none waits).',
    'kind',
    (d, set) => {
      for (const [kind, ms] of d.jobs.oldestDueMs) set(kind, ms / 1000);
    },
  );
  fromDatabase(
    'alerta_jobs_unknown_kind',
    'Jobs of a kind no handler knows (not in the registry of kinds): they wait and never run.',
    'kind',
    (d, set) => {
      for (const [kind, count] of d.jobs.unknownKinds) set(kind, count);
    },
  );
  fromDatabase('alerta_calls', 'Escalation calls stored, by their last status.', 'status', (d, set) => {
    for (const row of d.calls) set(row.status, Number(row.count));
  });

  /** The exposition text, with the database read afresh. */
  const scrape = () => {
    reading = undefined;
    return registry.metrics();
  };

  return {
    registry,
    scrape,
    alertsStored,
    pressToSms,
    smsSends,
    smsReceipts,
    callPlacements,
    providerErrors,
    httpDuration,
    rateLimited,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
