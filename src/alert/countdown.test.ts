import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { startCountdown } from './countdown';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it('goes on from a countdown already on screen: what is left of the current second, then whole seconds', () => {
  const ticks: number[] = [];
  const end = vi.fn();
  startCountdown(10, 2300, (n) => ticks.push(n), end);
  expect(ticks).toEqual([8]);
  vi.advanceTimersByTime(699);
  expect(ticks).toEqual([8]);
  vi.advanceTimersByTime(1);
  expect(ticks).toEqual([8, 7]);
  vi.advanceTimersByTime(6000);
  expect(ticks).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
  expect(end).not.toHaveBeenCalled();
  vi.advanceTimersByTime(1000);
  expect(end).toHaveBeenCalledTimes(1);
  vi.advanceTimersByTime(5000);
  expect(end).toHaveBeenCalledTimes(1);
});

it('ends at once when the time already went by, and stops when told', () => {
  const end = vi.fn();
  startCountdown(3, 3000, () => undefined, end);
  expect(end).toHaveBeenCalledTimes(1);
  const later = vi.fn();
  const stop = startCountdown(3, 0, () => undefined, later);
  vi.advanceTimersByTime(1500);
  stop();
  vi.advanceTimersByTime(5000);
  expect(later).not.toHaveBeenCalled();
});
