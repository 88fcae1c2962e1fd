import type { z } from 'zod';
import type { contactInput } from '../../../common/api/contacts.js';
import { CONTACT_MESSAGES, contactErrorBody, parseContact } from '../../../common/contact-rules.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { ApiError, detailError, fieldErrors, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { subscriptionProfile } from '../billing/index.js';
import { inviteContact, optedOutAmong } from '../sms-replies/index.js';
import {
  type ContactView,
  deleteContact,
  insertContact,
  listContacts,
  lockUser,
  putFirst,
  toView,
} from './repository.js';

/** What reading the list needs: the plan decides which contacts are alerted. */
type ContactDeps = Pick<Deps, 'db' | 'clock' | 'config'>;

export const SUBSCRIPTION_REQUIRED_TO_ADD = 'An active subscription is required to add contacts.';

/** The list in alerting order, each marked whether the plan's limit lets alerts reach it. */
export async function contactsView(deps: ContactDeps, user: User): Promise<ContactView[]> {
  const [contacts, profile] = await Promise.all([
    listContacts(deps.db, user.id),
    subscriptionProfile(deps.db, user, deps.clock.now(), deps.config),
  ]);
  const optedOut = await optedOutAmong(
    deps.db,
    contacts.map((contact) => contact.phone_number),
  );
  return contacts.map((contact, index) =>
    toView(contact, index < profile.contact_limit, optedOut.has(contact.phone_number)),
  );
}

/** On a plan with a lower limit: this contact becomes the first alerted (the last alerted one makes room). */
export async function alertFirst(deps: ContactDeps, user: User, id: string): Promise<ContactView[]> {
  if (!(await putFirst(deps.db, user.id, id))) throw notFound();
  return contactsView(deps, user);
}

/**
 * Adds a contact within the plan's limit, and invites them by SMS (features/sms-replies/).
 * Count, check and insert run under the user's lock, so concurrent adds cannot pass the limit together.
 */
export async function addContact(
  deps: ContactDeps & Pick<Deps, 'dialect' | 'jobs'>,
  user: User,
  input: z.output<typeof contactInput>,
): Promise<ContactView> {
  const now = deps.clock.now();
  const options = { longNumbers: deps.config.LONG_PHONE_NUMBERS };
  try {
    const contact = await deps.db.transaction().execute(async (trx) => {
      await lockUser(trx, deps.dialect, user.id);
      const profile = await subscriptionProfile(trx, user, now, deps.config);
      if (!profile.has_premium) throw detailError(402, SUBSCRIPTION_REQUIRED_TO_ADD, 'subscription_required');
      const existing = await listContacts(trx, user.id);
      if (existing.length >= profile.contact_limit) {
        throw detailError(
          400,
          `CONTACT_LIMIT_REACHED:${profile.contact_limit}:${profile.plan}`,
          'contact_limit_reached',
          undefined,
          { max: profile.contact_limit, plan: profile.plan ?? '' },
        );
      }
      const parsed = parseContact(
        input,
        existing.map((row) => row.phone_number),
        options,
      );
      if (!parsed.ok) throw new ApiError(400, contactErrorBody(parsed.errors));
      const row = { id: newId(), user_id: user.id, ...parsed.contact, created_at: now };
      await insertContact(trx, row);
      const invited = await inviteContact(trx, deps, { user, contact: { ...row, invited_at: null }, now });
      return { ...row, invited, invited_at: invited === 'invited' ? now : null, confirmed_at: null };
    });
    if (contact.invited === 'invited') deps.jobs.kick();
    return toView(contact, true, contact.invited === 'opted_out');
  } catch (error) {
    if (error instanceof ApiError || !isUniqueViolation(error)) throw error;
    // Only reachable if the lock were bypassed; the table's unique key still refuses the copy.
    throw fieldErrors({ phone_number: [CONTACT_MESSAGES.duplicate] }, 'duplicate_phone');
  }
}

/** Removes one of the user's contacts; someone else's id, an unknown one and a malformed one are all not found. */
export async function removeContact(deps: Pick<Deps, 'db'>, user: User, id: string): Promise<void> {
  if (!(await deleteContact(deps.db, user.id, id))) throw notFound();
}

/**
 * The invitation SMS again, asked from setup: at most once a week per contact, three a day to
 * one number from all accounts, never to a number that replied STOP (features/sms-replies/).
 */
export async function reinviteContact(
  deps: ContactDeps & Pick<Deps, 'dialect' | 'jobs'>,
  user: User,
  id: string,
): Promise<ContactView> {
  const now = deps.clock.now();
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const contact = (await listContacts(trx, user.id)).find((row) => row.id === id);
    if (!contact) throw notFound();
    return inviteContact(trx, deps, { user, contact, now });
  });
  if (outcome === 'too_soon') {
    throw detailError(429, 'An invitation went to this contact less than a week ago.', 'invitation_too_soon');
  }
  if (outcome === 'number_busy') {
    throw detailError(429, 'This number already received the most invitations allowed today.', 'invitation_limit');
  }
  if (outcome === 'opted_out') {
    throw detailError(
      409,
      'This number replied STOP: ask the contact to reply START to Alerta’s number.',
      'contact_opted_out',
    );
  }
  deps.jobs.kick();
  const view = (await contactsView(deps, user)).find((contact) => contact.id === id);
  if (!view) throw notFound();
  return view;
}
