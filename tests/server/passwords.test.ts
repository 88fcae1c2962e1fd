import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  hashPassword,
  hashPasswordsAtCostForTests,
  PASSWORD_HASH_COST,
  verifyPassword,
} from '../../server/features/accounts/passwords.js';
import { login, PASSWORD, verifiedAccount } from './accounts-helpers.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

// Every other server test hashes at a fraction of the cost (tests/server/setup.ts): here the
// server's own parameters, through a real sign-up and login.
describe(`passwords are hashed with argon2id at OWASP's parameters (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    hashPasswordsAtCostForTests();
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('stores a sign-up with m=19456 (19 MiB), t=2, p=1, and logs in against it', async () => {
    expect(PASSWORD_HASH_COST).toEqual({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });
    const account = await verifiedAccount(t);
    const row = await t.app.db
      .selectFrom('users')
      .select('password_hash')
      .where('username', '=', account.username)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await login(t, account.username)).statusCode).toBe(200);
    expect((await login(t, account.username, `${PASSWORD}x`)).statusCode).toBe(401);
    expect((await login(t, 'nobody-by-this-name')).statusCode).toBe(401);
  });

  it('checks a password against a hash of any cost, and refuses a wrong or malformed one', async () => {
    const full = await hashPassword('correct horse');
    expect(full).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(full, 'correct horse')).toBe(true);
    expect(await verifyPassword(full, 'correct horse!')).toBe(false);
    expect(await verifyPassword('not a hash', 'correct horse')).toBe(false);
    expect(await verifyPassword(undefined, 'correct horse')).toBe(false);
  });
});

describe('the cheaper hashing cost is for test runs only', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('cannot be set outside Vitest or with NODE_ENV=production', () => {
    const cheap = { memoryCost: 256, timeCost: 1, parallelism: 1 };
    vi.stubEnv('NODE_ENV', 'production');
    expect(() => hashPasswordsAtCostForTests(cheap)).toThrow('The password hashing cost changes in test runs only.');
    vi.unstubAllEnvs();
    vi.stubEnv('VITEST', undefined);
    expect(() => hashPasswordsAtCostForTests(cheap)).toThrow('The password hashing cost changes in test runs only.');
  });

  it('hashes at the cost it was given, until set back', async () => {
    hashPasswordsAtCostForTests({ memoryCost: 256, timeCost: 1, parallelism: 1 });
    expect(await hashPassword('x')).toMatch(/^\$argon2id\$v=19\$m=256,t=1,p=1\$/);
    hashPasswordsAtCostForTests();
    expect(await hashPassword('x')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});
