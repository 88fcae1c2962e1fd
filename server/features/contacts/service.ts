import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { contactInput } from '../../../common/api/contacts.js';
import { CONTACT_MESSAGES, contactErrorBody, parseContact } from '../../../common/contact-rules.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { User } from '../../db/schema.js';
import { ApiError, detailError, fieldErrors, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { subscriptionProfile } from '../billing/subscriptions.js';
import {
  type ContactView,
  deleteContact,
  insertContact,
  listContacts,
  lockUser,
  putFirst,
  toView,
} from './repository.js';

export const SUBSCRIPTION_REQUIRED_TO_ADD = 'An active subscription is required to add contacts.';

/** The list in alerting order, each marked whether the plan's limit lets alerts reach it. */
export async function contactsView(app: FastifyInstance, user: User): Promise<ContactView[]> {
  const [contacts, profile] = await Promise.all([
    listContacts(app.db, user.id),
    subscriptionProfile(app.db, user, app.clock.now(), app.config),
  ]);
  return contacts.map((contact, index) => toView(contact, index < profile.contact_limit));
}

/** On a plan with a lower limit: this contact becomes the first alerted (the last alerted one makes room). */
export async function alertFirst(app: FastifyInstance, user: User, id: string): Promise<ContactView[]> {
  if (!(await putFirst(app.db, user.id, id))) throw notFound();
  return contactsView(app, user);
}

/**
 * Adds a contact within the plan's limit. Count, check and insert run under the user's
 * lock, so concurrent adds cannot pass the limit together.
 */
export async function addContact(
  app: FastifyInstance,
  user: User,
  input: z.output<typeof contactInput>,
): Promise<ContactView> {
  const now = app.clock.now();
  const options = { longNumbers: app.config.LONG_PHONE_NUMBERS };
  try {
    const contact = await app.db.transaction().execute(async (trx) => {
      await lockUser(trx, app.dialect, user.id);
      const profile = await subscriptionProfile(trx, user, now, app.config);
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
      return row;
    });
    return toView(contact);
  } catch (error) {
    if (error instanceof ApiError || !isUniqueViolation(error)) throw error;
    // Only reachable if the lock were bypassed; the table's unique key still refuses the copy.
    throw fieldErrors({ phone_number: [CONTACT_MESSAGES.duplicate] }, 'duplicate_phone');
  }
}

/** Removes one of the user's contacts; someone else's id, an unknown one and a malformed one are all not found. */
export async function removeContact(app: FastifyInstance, user: User, id: string): Promise<void> {
  if (!(await deleteContact(app.db, user.id, id))) throw notFound();
}
