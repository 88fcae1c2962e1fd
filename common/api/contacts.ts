/** Contacts routes of DESIGN.md §3: request and response schemas. */
import { z } from 'zod';
import { contactsRoutes } from './routes.js';
import { type Contract, errorResponses, idParams, noContent, operation, SECURITY } from './shared.js';

/**
 * What the add form sends. Types only: what each field must contain is decided by the
 * shared rules in `common/contact-rules.ts`, so a missing name or number gets the same
 * message from the server as in the web app's form.
 */
export const contactInput = z
  .object({
    name: z.string().nullish(),
    phone_number: z.string().nullish(),
    relationship: z.string().nullish(),
  })
  .meta({ id: 'NewContact' });

export const contact = z
  .object({
    id: z.string(),
    name: z.string(),
    phone_number: z.string().describe('E.164, e.g. +351912345678'),
    relationship: z.string(),
    alerted: z.boolean().describe('False when the plan limit leaves this contact out of alerts (kept, not deleted).'),
    state: z
      .enum(['added', 'invited', 'confirmed', 'opted_out'])
      .describe(
        '`invited`: the invitation SMS went; `confirmed`: they replied YES; `opted_out`: they replied STOP and get nothing from Alerta until they reply START; `added`: no invitation could go yet.',
      ),
    invite_again_at: z
      .string()
      .nullable()
      .describe(
        'While `invited`: from when the owner may ask for the invitation again (ISO 8601, a week after the last one). Null otherwise.',
      ),
  })
  .meta({ id: 'Contact' });

export type Contact = z.output<typeof contact>;

const contactList = z.array(contact);

export const contactsApi = {
  list: {
    ...contactsRoutes.list,
    ...operation('listContacts', 'List the contacts', SECURITY.session),
    tags: ['contacts'],
    response: { 200: contactList, ...errorResponses(401) },
  },
  add: {
    ...contactsRoutes.add,
    ...operation('addContact', 'Add a contact', SECURITY.session),
    tags: ['contacts'],
    body: contactInput,
    response: { 201: contact, ...errorResponses(400, 401, 402) },
  },
  alertFirst: {
    ...contactsRoutes.alertFirst,
    ...operation('alertContactFirst', 'Alert a contact first', SECURITY.session),
    tags: ['contacts'],
    description: 'Makes the contact the first alerted on a plan with a lower limit; answers the list in its new order.',
    params: idParams,
    response: { 200: contactList, ...errorResponses(401, 404) },
  },
  invite: {
    ...contactsRoutes.invite,
    ...operation('inviteContact', 'Invite a contact again by SMS', SECURITY.session),
    tags: ['contacts'],
    description:
      'Sends the invitation SMS again (reply YES to confirm, STOP to receive nothing): at most once a week per contact and three a day to one number from all accounts, never to a number that replied STOP. Answers the contact.',
    params: idParams,
    response: { 200: contact, ...errorResponses(401, 404, 409, 429) },
  },
  remove: {
    ...contactsRoutes.remove,
    ...operation('deleteContact', 'Delete a contact', SECURITY.session),
    tags: ['contacts'],
    params: idParams,
    response: { 204: noContent, ...errorResponses(401, 404) },
  },
} as const satisfies Contract<typeof contactsRoutes>;
