import type { Kysely } from 'kysely';
import type { Database } from '../../server/db/schema.js';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { newId } from '../../server/lib/ids.js';

/** Rows written per insert while seeding. */
const CHUNK = 500;
/** Subscriptions activated at once while seeding. */
const ACTIVATING = 20;

/** Owner `i`'s contact `c`: a Portuguese mobile number no other owner's contact has. */
export const contactNumber = (i: number, c: number, contacts: number) =>
  `+35191${String(i * contacts + c).padStart(7, '0')}`;

/**
 * `owners` Premium subscribers with `contacts` contacts each, written straight into the database
 * (signing up 10,000 people through the API would measure the password hashing, not the alert).
 * Returns each owner's personal token, in order.
 */
export async function seedOwners(db: Kysely<Database>, owners: number, contacts: number): Promise<string[]> {
  const now = Date.now();
  const ids = Array.from({ length: owners }, () => newId());
  for (let start = 0; start < owners; start += CHUNK) {
    const slice = ids.slice(start, start + CHUNK);
    await db
      .insertInto('users')
      .values(
        slice.map((id, k) => ({
          id,
          username: `owner${start + k}`,
          email: `owner${start + k}@example.com`,
          password_hash: 'not-a-login',
          email_verified: 1,
          language: (start + k) % 2 === 0 ? ('pt' as const) : ('en' as const),
          alert_countdown_seconds: 5,
          token: null,
          trial_used_at: null,
          password_changed_at: now,
          created_at: now,
        })),
      )
      .execute();
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
  // What a checkout does: the subscription, and the personal token it issues.
  for (let start = 0; start < owners; start += ACTIVATING) {
    await Promise.all(
      ids.slice(start, start + ACTIVATING).map((userId) => activateSubscription(db, { userId, plan: 'premium', now })),
    );
  }
  const tokens = new Map<string, string>();
  for (const row of await db.selectFrom('users').select(['id', 'token']).execute()) {
    if (row.token) tokens.set(row.id, row.token);
  }
  return ids.map((id) => {
    const token = tokens.get(id);
    if (!token) throw new Error(`owner ${id} has no token`);
    return token;
  });
}
