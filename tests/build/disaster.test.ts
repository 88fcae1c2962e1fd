import { describe, expect, it } from 'vitest';
import { runDisaster } from '../../scripts/disaster/run.js';

// The regional-disaster load test on a tiny scale, so the script keeps working: 30 owners within
// 3 s against 3 server processes on PostgreSQL with Redis, SMS through the Twilio SDK to the fake
// on loopback at 50 ms each. The scenario needs both (TEST_DATABASE_URL and TEST_REDIS_URL, which
// .ci/run sets): without them it is skipped, as a declared condition.
const withPostgresAndRedis = describe.skipIf(!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL);

withPostgresAndRedis('loadtest --disaster, tiny (PostgreSQL and Redis)', () => {
  it('stores every alert once, sends each contact one SMS through the provider bound, no 5xx', {
    timeout: 180_000,
  }, async () => {
    const { figures, misses } = await runDisaster(30, 3_000);
    expect(misses).toEqual([]);
    expect(figures).toMatchObject({ owners: 30, processes: 3, stored: 30, lost: 0, serverErrors: 0, duplicates: 0 });
    expect(figures.sms).toBe(90);
    expect(figures.deliveries).toEqual({ sent: 90 });
    expect(figures.providerMaxInFlight).toBeGreaterThan(1);
    expect(figures.providerMaxInFlight).toBeLessThanOrEqual(figures.providerBound);
    expect(figures.p95Ms).toBeLessThan(1_000);
  });
});
