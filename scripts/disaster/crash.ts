// `npm run loadtest -- --crash [--owners 2000]`: server processes killed during a burst. Every
// owner (3 contacts each) alerts once within the window against 3 server processes on one
// PostgreSQL database with Redis, SMS through the Twilio adapters to the fake Twilio on loopback
// (50 ms a message), as in the regional disaster (run.ts); every few seconds one process is
// killed with SIGKILL, whatever it holds, and a new one started in its place. A press whose
// server died is sent again, with its key, to another (as a load balancer would). Prints lost /
// duplicate / max delay from the press to its SMS reaching the provider, and what missed its
// target (0 / 0 / ≤ 10 s).
import { killServer, type ServerProcess } from './processes.js';
import { missed, onStage, ownerAddress, PROCESSES, press, sentReferences, sleep } from './stage.js';

/** The window the presses are spread over by default. */
export const CRASH_WINDOW_MS = 30_000;
/** One process is killed this often during the burst (ms). */
const KILL_EVERY_MS = 5_000;
/** The longest a contact may wait from the press to the SMS reaching the provider (ms). */
export const MAX_DELAY_MS = 10_000;
/** How long the SMS may take to drain after the last press. */
const DRAIN_LIMIT_MS = 120_000;
/** Attempts of one press: the emergency page goes on retrying while it is open; 60 is half a minute. */
const PRESS_ATTEMPTS = 60;

export interface CrashFigures {
  owners: number;
  processes: number;
  kills: number;
  /** Presses never answered 200/201 after every retry, by the statuses of their attempts (0: no answer). */
  unanswered: number;
  unansweredStatuses: Record<string, number>;
  /** From the press to its answer (ms), retries included. */
  p95StoredMs: number;
  maxStoredMs: number;
  /** Owners without a stored alert, plus alert SMS never handed to the provider. */
  lost: number;
  /** SMS handed to the provider more than once. */
  duplicates: number;
  /** SMS a killed process held that another took over (their attempt unanswered: looked up at the provider first). */
  takenOver: number;
  /** From the press (its first attempt) to the last of its SMS reaching the provider (ms). */
  maxDelayMs: number;
  p95DelayMs: number;
  /** From the press's answer (the alert stored) to the last of its SMS reaching the provider (ms). */
  maxAfterAnswerMs: number;
  sms: number;
}

/**
 * Runs the burst with processes killed under it; the figures, and what missed its target.
 * `windowMs`: the presses' spread; `killEveryMs`: how often a process is killed (the first after
 * one period; 0 for none: the same burst as a baseline); `maxDelayMs`: the delay target (none
 * for a run too small to hold one).
 */
export async function runCrash(
  owners: number,
  { windowMs = CRASH_WINDOW_MS, killEveryMs = KILL_EVERY_MS, maxDelayMs = MAX_DELAY_MS } = {},
): Promise<{ figures: CrashFigures; misses: string[] }> {
  return onStage('crash', owners, async ({ handle, provider, seeded, servers, launch }) => {
    servers.push(...(await Promise.all(Array.from({ length: PROCESSES }, launch))));

    const killing = killEveryMs > 0 ? `a process killed every ${killEveryMs / 1000} s` : 'no process killed';
    console.error(`crash: ${owners} alerts within ${windowMs / 1000} s, ${killing}`);
    const begun = Date.now();
    let kills = 0;
    let burning = true;
    let burstOver: () => void = () => {};
    const over = new Promise<void>((resolve) => (burstOver = resolve));
    // Kills the oldest process and starts another in its slot; presses go to the others meanwhile.
    const killer = (async () => {
      for (let slot = 0; ; slot = (slot + 1) % PROCESSES) {
        await Promise.race([killEveryMs > 0 ? sleep(killEveryMs) : over, over]);
        if (!burning) return;
        const victim = servers[slot] as ServerProcess;
        await killServer(victim);
        kills += 1;
        console.error(`crash: killed a process (${kills}) at ${((Date.now() - begun) / 1000).toFixed(1)} s`);
        servers[slot] = await launch();
      }
    })();
    const pressedAt = new Map<string, number>();
    const answeredAt = new Map<string, number>();
    const presses = await Promise.all(
      seeded.map(async ({ id, token }, i) => {
        await sleep((i * windowMs) / owners);
        pressedAt.set(id, Date.now());
        // Each attempt to another process: one killed mid-request is not asked again.
        const target = (attempt: number) => (servers[(i + attempt) % PROCESSES] as ServerProcess).url;
        const pressed = await press(target, token, ownerAddress(i), PRESS_ATTEMPTS);
        answeredAt.set(id, Date.now());
        return pressed;
      }),
    );
    burning = false;
    burstOver();
    await killer;

    const deliveries = await handle.db
      .selectFrom('deliveries as d')
      .innerJoin('alerts as a', 'a.id', 'd.alert_id')
      .select(['d.id', 'a.user_id'])
      .where('d.kind', '=', 'alert')
      .execute();
    const references = () => sentReferences(provider);
    const expected = new Set(deliveries.map((d) => d.id));
    const deadline = Date.now() + DRAIN_LIMIT_MS;
    const handed = () => new Set(references().filter((d) => d !== null && expected.has(d))).size;
    // Until every SMS is recorded sent: none is then left that any process could send again.
    const unsent = async () =>
      (
        await handle.db
          .selectFrom('deliveries')
          .select('id')
          .where('status', 'not in', ['sent', 'delivered'])
          .limit(1)
          .execute()
      ).length;
    while ((handed() < expected.size || (await unsent()) > 0) && Date.now() < deadline) await sleep(500);

    // Each SMS's first arrival at the provider, against its owner's press.
    const firstSent = new Map<string, number>();
    references().forEach((d, i) => {
      if (d !== null && !firstSent.has(d)) firstSent.set(d, provider.messages[i]?.sentAt ?? 0);
    });
    const since = (at: Map<string, number>) =>
      deliveries
        .flatMap((d) => {
          const sent = firstSent.get(d.id);
          const from = at.get(d.user_id);
          return sent === undefined || from === undefined ? [] : [sent - from];
        })
        .sort((a, b) => a - b);
    const delays = since(pressedAt);
    const all = references();
    const takenOver = await handle.db
      .selectFrom('deliveries')
      .select(({ fn }) => fn.countAll<string>().as('n'))
      .where('unanswered_since', 'is not', null)
      .executeTakeFirstOrThrow();
    const stored = presses.map((p) => p.ms).sort((a, b) => a - b);
    const unansweredStatuses: Record<string, number> = {};
    for (const status of presses.filter((p) => !p.stored).flatMap((p) => p.statuses)) {
      unansweredStatuses[status] = (unansweredStatuses[status] ?? 0) + 1;
    }
    const owned = new Set(deliveries.map((d) => d.user_id));
    const figures: CrashFigures = {
      owners,
      processes: PROCESSES,
      kills,
      unanswered: presses.filter((p) => !p.stored).length,
      unansweredStatuses,
      p95StoredMs: Math.round(stored[Math.floor(stored.length * 0.95)] ?? 0),
      maxStoredMs: Math.round(stored.at(-1) ?? 0),
      lost: owners - owned.size + (expected.size - handed()),
      duplicates: all.length - new Set(all).size,
      takenOver: Number(takenOver.n),
      maxDelayMs: delays.at(-1) ?? 0,
      p95DelayMs: delays[Math.floor(delays.length * 0.95)] ?? 0,
      maxAfterAnswerMs: since(answeredAt).at(-1) ?? 0,
      sms: all.length,
    };
    const misses = missed([
      figures.lost !== 0 && `${figures.lost} lost (alerts never stored or SMS never handed over)`,
      figures.duplicates !== 0 && `${figures.duplicates} duplicate SMS`,
      figures.maxDelayMs > maxDelayMs && `max delay press → provider ${figures.maxDelayMs} ms`,
      killEveryMs > 0 && kills === 0 && 'no process was killed',
    ]);
    return { figures, misses };
  });
}
