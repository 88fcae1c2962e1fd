import type { FastifyInstance } from 'fastify';
import { COUNTDOWN_CHOICES, LANGUAGES } from '../../../common/constants.js';
import {
  canonicalTimeZone,
  normaliseDisplayName,
  PROFILE_MESSAGES,
  validateDisplayName,
} from '../../../common/profile-rules.js';
import type { User, UserUpdate } from '../../db/schema.js';
import { type SubscriptionProfile, subscriptionProfile } from '../billing/subscriptions.js';
import { objectBody, Problems } from './fields.js';
import { findById } from './repository.js';

/** The `/me` answer (DESIGN §3); the token appears on the user and on the profile. */
export interface MeView {
  id: string;
  username: string;
  email: string | null;
  language: string;
  /** The name contacts see; null when the username is shown. */
  display_name: string | null;
  /** IANA time zone of SMS times; null for UTC. */
  time_zone: string | null;
  token: string | null;
  profile: SubscriptionProfile & { alert_countdown_seconds: number; token: string | null };
}

/** The current user with the profile fields derived from their subscription now. */
export async function meView(app: FastifyInstance, user: User): Promise<MeView> {
  const profile = await subscriptionProfile(app.db, user, app.clock.now(), app.config);
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

const notAChoice = (value: unknown) => `"${String(value).slice(0, 50)}" is not a valid choice.`;

/**
 * Changes the language (pt|en), the alert countdown (0/3/5/10 s), the display name (empty or
 * null: the username again) and the time zone (IANA); other fields are read-only.
 */
export async function updateMe(app: FastifyInstance, user: User, body: unknown): Promise<MeView> {
  const data = objectBody(body);
  const problems = new Problems();
  const changes: UserUpdate = {};
  if (data.language !== undefined) {
    if (typeof data.language === 'string' && (LANGUAGES as readonly string[]).includes(data.language)) {
      changes.language = data.language;
    } else problems.add('language', notAChoice(data.language));
  }
  if (data.alert_countdown_seconds !== undefined) {
    const seconds = data.alert_countdown_seconds;
    if (typeof seconds === 'number' && (COUNTDOWN_CHOICES as readonly number[]).includes(seconds)) {
      changes.alert_countdown_seconds = seconds;
    } else problems.add('alert_countdown_seconds', notAChoice(seconds));
  }
  if (data.display_name !== undefined) {
    const name = data.display_name;
    if (name !== null && typeof name !== 'string') problems.add('display_name', PROFILE_MESSAGES.invalidDisplayName);
    else {
      const error = validateDisplayName(name);
      if (error === 'setup.display_name_link') problems.add('display_name', PROFILE_MESSAGES.displayNameLink);
      else if (error) problems.add('display_name', PROFILE_MESSAGES.invalidDisplayName);
      else changes.display_name = normaliseDisplayName(name) || null;
    }
  }
  if (data.time_zone !== undefined) {
    const zone = data.time_zone === null ? null : canonicalTimeZone(data.time_zone);
    if (zone || data.time_zone === null) changes.time_zone = zone;
    else problems.add('time_zone', PROFILE_MESSAGES.invalidTimeZone(String(data.time_zone)));
  }
  problems.throwIfAny();
  if (Object.keys(changes).length > 0) {
    await app.db.updateTable('users').set(changes).where('id', '=', user.id).execute();
  }
  return meView(app, (await findById(app.db, user.id)) ?? { ...user, ...changes });
}
