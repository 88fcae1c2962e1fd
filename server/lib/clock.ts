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
