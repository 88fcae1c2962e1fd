import { afterEach, vi } from 'vitest';
import { hashPasswordsAtCostForTests } from '../../server/features/accounts/passwords.js';

// A test that moved the wall clock (helper.ts moveTime) leaves the next one the real one.
afterEach(() => {
  vi.useRealTimers();
});

// argon2id at a fraction of its cost (256 KiB, 1 pass: under a millisecond instead of ~60 ms) for
// every server test file; passwords.test.ts checks the full cost the server uses.
hashPasswordsAtCostForTests({ memoryCost: 256, timeCost: 1, parallelism: 1 });
