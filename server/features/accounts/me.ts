import type { z } from 'zod';
import type { Me, meUpdate } from '../../../common/api/accounts.js';
import type { User, UserUpdate } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { subscriptionProfile } from '../billing/subscriptions.js';
import { findById, updateUser } from './repository.js';

/** The current user with the profile fields derived from their subscription now; the token is on both. */
export async function meView(deps: Pick<Deps, 'db' | 'clock' | 'config'>, user: User): Promise<Me> {
  const profile = await subscriptionProfile(deps.db, user, deps.clock.now(), deps.config);
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    language: user.language,
    display_name: user.display_name,
    time_zone: user.time_zone,
    token: user.token,
    profile: { ...profile, alert_countdown_seconds: user.alert_countdown_seconds, token: user.token },
  };
}

/**
 * Changes the language, the alert countdown, the display name (null: the username again)
 * and the time zone, as the request's schema checked and normalised them.
 */
export async function updateMe(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  user: User,
  input: z.output<typeof meUpdate>,
): Promise<Me> {
  const changes: UserUpdate = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  if (Object.keys(changes).length > 0) {
    await updateUser(deps.db, user.id, changes);
  }
  return meView(deps, (await findById(deps.db, user.id)) ?? { ...user, ...changes });
}
