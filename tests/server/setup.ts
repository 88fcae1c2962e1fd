import { afterEach, vi } from 'vitest';

// A test that moved the wall clock (helper.ts moveTime) leaves the next one the real one.
afterEach(() => {
  vi.useRealTimers();
});
