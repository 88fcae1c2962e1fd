import type { Alert, Contact } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { currentOf, profileOf } from '../billing/index.js';
import { admitted, type OwnerDeps, storedKey, type TokenOwner, unknownToken } from '../owner/index.js';
import { ownerWithAlerting } from './alerting-owner-repository.js';
import { alertById } from './repository.js';

/** The owner an alert request is for, with the contacts it alerts and the alert its key already made. */
export type AlertingOwner = TokenOwner & { contacts: Contact[]; replay: Alert | undefined };

/**
 * The token's owner with their plan, the contacts the plan lets an alert reach, and the alert
 * `key` already made, read in ONE statement (the alert route's first read under load): 404
 * for an unknown token; a new key needs an active plan and a confirmed e-mail (402, 403),
 * a replayed one is answered whatever changed since (see `admitted`).
 */
export async function alertingOwner(
  deps: OwnerDeps & Pick<Deps, 'dialect'>,
  token: string,
  key: unknown,
): Promise<AlertingOwner> {
  const { db, dialect } = deps;
  // No alert has an empty key (the contract refuses one).
  const found = await ownerWithAlerting(db, dialect, token, storedKey(key) ?? '');
  if (!found) throw unknownToken();
  const { user, subscriptions, contacts, replayId } = found;
  const now = deps.clock.now();
  const profile = profileOf(user, currentOf(subscriptions, now), now, deps.config);
  const replay = replayId ? await alertById(db, replayId) : undefined;
  return { ...admitted({ user, profile }, replay), contacts: contacts.slice(0, profile.contact_limit) };
}
