import { setTimeout as wait } from 'node:timers/promises';

/** Source of the current time in epoch milliseconds; injectable so tests can move time. */
export interface Clock {
  now(): number;
  /** Waits `ms` before going on (a deliberate delay, e.g. before answering a login under attack). */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep: (ms) => wait(ms) };

/** A clock that only moves when told to; for tests. */
export class ManualClock implements Clock {
  /** Every delay asked of `sleep`, in order: tests read them instead of waiting. */
  readonly slept: number[] = [];

  constructor(private current = Date.UTC(2026, 0, 1, 12)) {}
  now(): number {
    return this.current;
  }
  /** Records the delay and goes on at once (the time does not move). */
  async sleep(ms: number): Promise<void> {
    this.slept.push(ms);
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

/** The machine's monotonic time (ms): a step of its wall clock (NTP, a VM after a pause, an operator) does not move it. */
const monotonicNow = () => performance.now();

/**
 * The server's clock: the database's time at the last sync plus the monotonic time elapsed
 * since, so that due times, leases and backoffs written by any process mean the same instant to
 * every other, and a step of this machine's wall clock between syncs moves none of them (a
 * process stepped a minute ahead would otherwise fire jobs early and take leases another still
 * holds until its next sync). `sync` measures the database's time against the middle of a round
 * trip; until the first one it is the base clock's. On SQLite the database's time is the
 * machine's own wall clock, read at each sync.
 */
export class DatabaseClock implements Clock {
  /** The database's time at the last sync, and the monotonic time it stood for (ms). */
  private synced: { databaseMs: number; monotonicMs: number } | null = null;
  private offset = 0;

  constructor(
    private readonly base: Clock = systemClock,
    private readonly monotonic: () => number = monotonicNow,
  ) {}

  now(): number {
    if (!this.synced) return this.base.now();
    return Math.round(this.synced.databaseMs + (this.monotonic() - this.synced.monotonicMs));
  }

  sleep(ms: number): Promise<void> {
    return this.base.sleep(ms);
  }

  /** How far the base clock is behind the database's at the last sync (ms; negative when ahead). */
  get offsetMs(): number {
    return this.offset;
  }

  /** Reads the database's time and keeps it; resolves with the base clock's offset from it. */
  async sync(databaseNow: () => Promise<number>): Promise<number> {
    const sent = this.monotonic();
    const theirs = await databaseNow();
    const received = this.monotonic();
    this.synced = { databaseMs: theirs, monotonicMs: (sent + received) / 2 };
    this.offset = Math.round(theirs + (received - sent) / 2 - this.base.now());
    return this.offset;
  }
}
