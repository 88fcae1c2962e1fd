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

/**
 * The server's clock: the machine's (or an injected one) moved onto the database's, so that due
 * times, leases and backoffs written by any process mean the same instant to every other. A
 * process whose clock is off by minutes (a VM after a pause) then fires nothing early and takes
 * no lease another still holds. `sync` measures the offset against the middle of a round trip;
 * until the first one the offset is 0.
 */
export class DatabaseClock implements Clock {
  private offset = 0;

  constructor(private readonly base: Clock = systemClock) {}

  now(): number {
    return this.base.now() + this.offset;
  }

  sleep(ms: number): Promise<void> {
    return this.base.sleep(ms);
  }

  /** How far the base clock is behind the database's at the last sync (ms; negative when ahead). */
  get offsetMs(): number {
    return this.offset;
  }

  /** Reads the database's time and keeps the offset; resolves with it. */
  async sync(databaseNow: () => Promise<number>): Promise<number> {
    const sent = this.base.now();
    const theirs = await databaseNow();
    const received = this.base.now();
    this.offset = Math.round(theirs - (sent + received) / 2);
    return this.offset;
  }
}
