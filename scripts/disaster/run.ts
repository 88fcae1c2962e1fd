// `npm run loadtest -- --disaster [--owners 10000]`: a regional disaster. Every owner (3 contacts
// each) alerts once within 60 s against 3 server processes on one PostgreSQL database with
// Redis, their SMS through the Twilio adapter and SDK to a fake Twilio on loopback that takes
// 50 ms per message; rate limits and SMS budgets on as in production, each owner from an address
// of their own (X-Forwarded-For, TRUST_PROXY=1). Checks 0 alerts lost, 0 duplicate SMS, 0 5xx,
// p95 press → stored under 1 s and the provider never holding more than its bound; prints the
// figures and exits non-zero on a miss.
import { summarize } from '../../bench/stats.js';
import type { ServerProcess } from './processes.js';
import { CONTACTS, missed, onStage, ownerAddress, PROCESSES, press, SMS_CONCURRENCY, sleep } from './stage.js';

/** The window the owners' presses are spread over by default. */
export const WINDOW_MS = 60_000;
const P95_LIMIT_MS = 1_000;
/** How long the SMS may take to drain after the last alert. */
const DRAIN_LIMIT_MS = 240_000;

export interface DisasterFigures {
  owners: number;
  processes: number;
  pressedS: number;
  stored: number;
  lost: number;
  serverErrors: number;
  retried: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** SMS of the alerts' deliveries handed to the provider (each delivery once, duplicates aside). */
  sms: number;
  /** Others: the escalation's second round, when the run outlasts ESCALATION_AFTER_SECONDS. */
  otherSms: number;
  /** Escalation calls placed. */
  calls: number;
  duplicates: number;
  deliveries: Record<string, number>;
  lastSmsS: number;
  providerMaxInFlight: number;
  providerBound: number;
}

/**
 * Runs the scenario: `owners` presses spread over `windowMs`; the figures, and what missed its
 * target. `p95LimitMs`: the latency target (none for a run too small to hold one).
 */
export async function runDisaster(
  owners: number,
  windowMs = WINDOW_MS,
  p95LimitMs = P95_LIMIT_MS,
): Promise<{ figures: DisasterFigures; misses: string[] }> {
  return onStage('disaster', owners, async ({ handle, provider, seeded, servers, launch }) => {
    for (let p = 0; p < PROCESSES; p += 1) servers.push(await launch());

    console.error(`disaster: ${owners} alerts within ${windowMs / 1000} s over ${PROCESSES} processes`);
    const started = performance.now();
    const presses = await Promise.all(
      seeded.map(async ({ token }, i) => {
        await sleep((i * windowMs) / owners);
        return press(() => (servers[i % PROCESSES] as ServerProcess).url, token, ownerAddress(i));
      }),
    );
    const pressedS = (performance.now() - started) / 1000;

    const messages = () => provider.requests.filter((r) => r.path.endsWith('/Messages.json'));
    const expected = owners * CONTACTS;
    const deadline = Date.now() + DRAIN_LIMIT_MS;
    const uniqueSent = () => new Set(messages().map((m) => m.form.StatusCallback)).size;
    while (uniqueSent() < expected && Date.now() < deadline) await sleep(500);
    await sleep(2_000); // any duplicate still on its way
    const drainedS = (performance.now() - started) / 1000;

    const alerts = await handle.db
      .selectFrom('alerts')
      .select(({ fn }) => fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const byStatus = await handle.db
      .selectFrom('deliveries')
      .select(['status', ({ fn }) => fn.countAll<string>().as('n')])
      .groupBy('status')
      .execute();
    const references = messages().map((m) => new URL(m.form.StatusCallback ?? 'http://x/').searchParams.get('d'));
    const duplicates = references.length - new Set(references).size;
    // The alerts' own SMS; a run longer than ESCALATION_AFTER_SECONDS also sends the second round.
    const alertDeliveries = new Set(
      (await handle.db.selectFrom('deliveries').select('id').where('kind', '=', 'alert').execute()).map((d) => d.id),
    );
    const alertSms = references.filter((d) => d !== null && alertDeliveries.has(d));
    const alertsSent = new Set(alertSms).size;
    const latency = summarize(presses.map((p) => p.ms));
    const serverErrors = presses.flatMap((p) => p.statuses).filter((s) => s >= 500).length;
    const retried = presses.filter((p) => p.statuses.length > 1).length;
    const lost = owners - Number(alerts.n);
    const figures: DisasterFigures = {
      owners,
      processes: PROCESSES,
      pressedS: Math.round(pressedS * 10) / 10,
      stored: presses.filter((p) => p.stored).length,
      lost,
      serverErrors,
      retried,
      p50Ms: Math.round(latency.median),
      p95Ms: Math.round(latency.p95),
      maxMs: Math.round(latency.max),
      sms: alertSms.length,
      otherSms: references.length - alertSms.length,
      calls: provider.requests.filter((r) => r.path.endsWith('/Calls.json')).length,
      duplicates,
      deliveries: Object.fromEntries(byStatus.map((row) => [row.status, Number(row.n)])),
      lastSmsS: Math.round(drainedS * 10) / 10,
      providerMaxInFlight: provider.maxInFlight(),
      providerBound: SMS_CONCURRENCY * PROCESSES,
    };
    const misses = missed([
      lost !== 0 && `${lost} alerts lost`,
      figures.stored !== owners && `${owners - figures.stored} presses never stored`,
      duplicates !== 0 && `${duplicates} duplicate SMS`,
      serverErrors !== 0 && `${serverErrors} 5xx answers`,
      figures.p95Ms >= p95LimitMs && `p95 press → stored ${figures.p95Ms} ms`,
      alertsSent !== expected && `${alertsSent} of ${expected} alert SMS handed to the provider`,
      figures.providerMaxInFlight > figures.providerBound &&
        `the provider held ${figures.providerMaxInFlight} at once (bound ${figures.providerBound})`,
    ]);
    return { figures, misses };
  });
}
