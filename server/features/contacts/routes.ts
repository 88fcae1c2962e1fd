import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CONTACT_MESSAGES, type ContactErrors, parseContact } from '../../../common/contact-rules.js';
import type { User } from '../../db/schema.js';
import { ApiError, detailError, fieldErrors, notFound, parseWith } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { subscriptionProfile } from '../billing/subscriptions.js';
import {
  deleteContact,
  insertContact,
  isUniqueViolation,
  listContacts,
  lockUser,
  putFirst,
  toView,
} from './repository.js';

// Types only: what each field must contain is decided by the shared rules in common/,
// so a missing name or number gets the same message here as in the web app's form.
const contactBody = z.object({
  name: z.string().nullish(),
  phone_number: z.string().nullish(),
  relationship: z.string().nullish(),
});

export const SUBSCRIPTION_REQUIRED_TO_ADD = 'An active subscription is required to add contacts.';

const toFieldErrors = (errors: ContactErrors) =>
  fieldErrors(
    Object.fromEntries(Object.entries(errors).map(([field, error]) => [field, [error.message]])),
    errors.phone_number?.key === 'setup.phone_already_exists' ? 'duplicate_phone' : 'invalid',
  );

/** The user's emergency contacts: list, add (within the plan's limit), remove. */
export default async function contactRoutes(app: FastifyInstance) {
  /** The list in alerting order, each marked whether the plan's limit lets alerts reach it. */
  async function contactsView(user: User) {
    const [contacts, profile] = await Promise.all([
      listContacts(app.db, user.id),
      subscriptionProfile(app.db, user, app.clock.now(), app.config),
    ]);
    return contacts.map((contact, index) => toView(contact, index < profile.contact_limit));
  }

  app.get('/api/emergency/contacts/', { onRequest: app.authenticate }, async (request, reply) => {
    return reply.header('cache-control', 'no-store').send(await contactsView(request.user));
  });

  // On a plan with a lower limit: this contact becomes the first alerted (the last alerted one makes room).
  app.post<{ Params: { id: string } }>(
    '/api/emergency/contacts/:id/alert-first/',
    { onRequest: app.authenticate },
    async (request, reply) => {
      if (!(await putFirst(app.db, request.user.id, request.params.id))) throw notFound();
      return reply.header('cache-control', 'no-store').send(await contactsView(request.user));
    },
  );

  app.post('/api/emergency/contacts/', { onRequest: app.authenticate }, async (request, reply) => {
    const body = parseWith(contactBody, request.body);
    const user = request.user;
    const now = app.clock.now();
    const options = { longNumbers: app.config.LONG_PHONE_NUMBERS };
    try {
      // Count, check and insert under the user's lock so concurrent adds cannot pass the limit together.
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
          );
        }
        const parsed = parseContact(
          body,
          existing.map((row) => row.phone_number),
          options,
        );
        if (!parsed.ok) throw toFieldErrors(parsed.errors);
        const row = { id: newId(), user_id: user.id, ...parsed.contact, created_at: now };
        await insertContact(trx, row);
        return row;
      });
      return reply.code(201).send(toView(contact));
    } catch (error) {
      if (error instanceof ApiError || !isUniqueViolation(error)) throw error;
      // Only reachable if the lock were bypassed; the table's unique key still refuses the copy.
      throw fieldErrors({ phone_number: [CONTACT_MESSAGES.duplicate] }, 'duplicate_phone');
    }
  });

  app.delete<{ Params: { id: string } }>(
    '/api/emergency/contacts/:id/',
    { onRequest: app.authenticate },
    async (request, reply) => {
      // Someone else's id, an unknown one and a malformed one all look the same: not found.
      const deleted = await deleteContact(app.db, request.user.id, request.params.id);
      if (!deleted) throw notFound();
      return reply.code(204).send();
    },
  );
}
