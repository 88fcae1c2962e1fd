import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../../server/db/schema.js';

const TABLES = [
  'users',
  'sessions',
  'refresh_tokens',
  'one_time_tokens',
  'contacts',
  'subscriptions',
  'checkout_sessions',
  'alerts',
  'deliveries',
  'usage_records',
  'alert_locations',
  'alert_responders',
] as const;

/** Row count of every table that a request could add to or remove from. */
export async function rowCounts(db: Kysely<Database>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

/**
 * What must hold whatever was thrown at the API: every user has a password hash, every
 * alert has its deliveries, every contact is well-formed and owned, nothing is orphaned.
 */
export async function expectDatabaseInvariants(db: Kysely<Database>): Promise<void> {
  const users = await db.selectFrom('users').select(['id', 'username', 'password_hash', 'token']).execute();
  for (const user of users) {
    expect(user.password_hash, `user ${user.username} has a hash`).toMatch(/^\$argon2id\$/);
    expect(user.username).toBe(user.username.toLowerCase());
    if (user.token !== null) expect(user.token).toMatch(/^[A-Za-z0-9_-]{22,}$/);
  }
  const ids = new Set(users.map((u) => u.id));

  const contacts = await db.selectFrom('contacts').selectAll().execute();
  for (const contact of contacts) {
    expect(ids.has(contact.user_id), `contact ${contact.id} has an owner`).toBe(true);
    expect(contact.phone_number).toMatch(/^\+[1-9]\d{8,14}$/);
    expect([...contact.name.trim()].length).toBeGreaterThanOrEqual(2);
    expect([...contact.name.trim()].length).toBeLessThanOrEqual(50);
    // No control characters or markup survive the name rules.
    expect([...contact.name].some((c) => c.charCodeAt(0) < 0x20 || c === '<' || c === '>')).toBe(false);
  }

  const alerts = await db.selectFrom('alerts').select(['id', 'user_id']).execute();
  const deliveries = await db.selectFrom('deliveries').select(['id', 'alert_id', 'status']).execute();
  for (const alert of alerts) {
    expect(ids.has(alert.user_id), `alert ${alert.id} has an owner`).toBe(true);
    expect(
      deliveries.some((d) => d.alert_id === alert.id),
      `alert ${alert.id} has deliveries`,
    ).toBe(true);
  }
  const alertIds = new Set(alerts.map((a) => a.id));
  for (const delivery of deliveries) expect(alertIds.has(delivery.alert_id)).toBe(true);

  for (const table of ['sessions', 'subscriptions', 'one_time_tokens'] as const) {
    const rows = await db.selectFrom(table).select('user_id').execute();
    for (const row of rows) expect(ids.has(row.user_id), `${table} row has a user`).toBe(true);
  }
}
