// What the bench, its server and the load tests set up the same way: owners with contacts
// written straight into the database, an alert as the route stores it, the page's POST body, and
// one-off statements on PostgreSQL.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { Database, NewAlert } from '../server/db/schema.js';
import { activateSubscription } from '../server/features/billing/subscriptions.js';
import { newId, orderedId, randomToken } from '../server/lib/ids.js';

/** Where every measured alert is: Lisbon, to 12 m. */
export const LISBON = { latitude: 38.72225, longitude: -9.13934, accuracy: 12 };

/** The emergency page's POST body for a real alert from LISBON, fixed now. */
export const alertBody = () => JSON.stringify({ mode: 'real', location: { ...LISBON, captured_at: Date.now() } });

/** A real alert from LISBON as the route stores it, without its deliveries. */
export function benchAlert(userId: string, message: string, now: number): NewAlert {
  return {
    id: orderedId(),
    public_id: randomToken(16),
    user_id: userId,
    mode: 'real',
    idempotency_key: randomUUID(),
    ...LISBON,
    captured_at: now,
    location_error: null,
    message,
    created_at: now,
    resolved_at: null,
  };
}

/** Runs one statement on the PostgreSQL server at `url` over a connection of its own (schemas, databases). */
export async function adminQuery(url: string | undefined, query: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(query);
  } finally {
    await client.end();
  }
}

/** Rows written per insert while seeding. */
const CHUNK = 500;
/** Subscriptions activated at once while seeding. */
const ACTIVATING = 20;

/** Owner `i`'s contact `c`: a Portuguese mobile number no other owner's contact of one seeding has. */
export const contactNumber = (i: number, c: number, contacts: number) =>
  `+35191${String(i * contacts + c).padStart(7, '0')}`;

export interface SeedOptions {
  owners: number;
  contacts: number;
  /** Every owner's countdown (s); 5 unless told. */
  countdown?: number;
  /** Every owner's language; Portuguese and English in turn unless told. */
  language?: 'pt' | 'en';
}

/**
 * Premium subscribers with contacts, written straight into the database (signing thousands up
 * through the API would measure the password hashing, not the alert), activated as a checkout
 * does, which issues their personal tokens. Returns each owner's id and token, in order.
 */
export async function seedOwners(db: Kysely<Database>, options: SeedOptions): Promise<{ id: string; token: string }[]> {
  const { owners, contacts } = options;
  const now = Date.now();
  const prefix = `owner${randomBytes(3).toString('hex')}-`;
  const ids = Array.from({ length: owners }, () => newId());
  for (let start = 0; start < owners; start += CHUNK) {
    const slice = ids.slice(start, start + CHUNK);
    await db
      .insertInto('users')
      .values(
        slice.map((id, k) => ({
          id,
          username: `${prefix}${start + k}`,
          email: `${prefix}${start + k}@example.com`,
          password_hash: 'not-a-login',
          email_verified: 1,
          language: options.language ?? ((start + k) % 2 === 0 ? ('pt' as const) : ('en' as const)),
          alert_countdown_seconds: options.countdown ?? 5,
          token: null,
          trial_used_at: null,
          password_changed_at: now,
          created_at: now,
        })),
      )
      .execute();
    if (contacts === 0) continue;
    await db
      .insertInto('contacts')
      .values(
        slice.flatMap((id, k) =>
          Array.from({ length: contacts }, (_, c) => ({
            id: newId(),
            user_id: id,
            name: `Contact ${c + 1}`,
            phone_number: contactNumber(start + k, c, contacts),
            relationship: '',
            created_at: now,
          })),
        ),
      )
      .execute();
  }
  for (let start = 0; start < owners; start += ACTIVATING) {
    await Promise.all(
      ids.slice(start, start + ACTIVATING).map((userId) => activateSubscription(db, { userId, plan: 'premium', now })),
    );
  }
  // Every user's: a list of thousands of ids would pass the database's limit on parameters.
  const rows = await db.selectFrom('users').select(['id', 'token']).execute();
  const tokens = new Map(rows.map((row) => [row.id, row.token]));
  return ids.map((id) => {
    const token = tokens.get(id);
    if (!token) throw new Error(`owner ${id} has no token`);
    return { id, token };
  });
}
