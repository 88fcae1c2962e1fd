import type { z } from 'zod';
import { type Me, type meUpdate, PIN_MESSAGES } from '../../../common/api/accounts.js';
import type { User, UserUpdate } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { fieldErrors } from '../../lib/errors.js';
import { subscriptionProfile } from '../billing/index.js';
import { hashPassword, verifyPassword } from './passwords.js';
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
    has_checkin_pin: user.checkin_pin_hash !== null,
    has_duress_pin: user.duress_pin_hash !== null,
    escalation_after_seconds: user.escalation_after_seconds ?? deps.config.ESCALATION_AFTER_SECONDS,
    profile: { ...profile, alert_countdown_seconds: user.alert_countdown_seconds, token: user.token },
  };
}

/**
 * Changes the language, the alert countdown, the display name (null: the username again),
 * the time zone, the check-in PINs (hashed; null clears) and the escalation delay (null: the
 * server's default), as the request's schema checked
 * and normalised them. A new PIN may not be the other one already set (400 `same_pin`).
 */
export async function updateMe(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  user: User,
  input: z.output<typeof meUpdate>,
): Promise<Me> {
  const { checkin_pin, duress_pin, ...fields } = input;
  const changes: UserUpdate = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  const clash = async (given: string | null | undefined, other: string | null) =>
    typeof given === 'string' && other !== null && (await verifyPassword(other, given));
  // Against the other PIN as stored, unless this request changes it too (the schema compares those).
  if (
    (checkin_pin !== undefined && duress_pin === undefined && (await clash(checkin_pin, user.duress_pin_hash))) ||
    (duress_pin !== undefined && checkin_pin === undefined && (await clash(duress_pin, user.checkin_pin_hash)))
  ) {
    throw fieldErrors({ [duress_pin !== undefined ? 'duress_pin' : 'checkin_pin']: [PIN_MESSAGES.same] }, 'same_pin');
  }
  if (checkin_pin !== undefined)
    changes.checkin_pin_hash = checkin_pin === null ? null : await hashPassword(checkin_pin);
  if (duress_pin !== undefined) changes.duress_pin_hash = duress_pin === null ? null : await hashPassword(duress_pin);
  if (Object.keys(changes).length > 0) {
    await updateUser(deps.db, user.id, changes);
  }
  return meView(deps, (await findById(deps.db, user.id)) ?? { ...user, ...changes });
}
