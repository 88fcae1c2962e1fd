import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contactsApi } from '../../../common/api/contacts.js';
import { served } from '../../../common/api/shared.js';
import { addContact, alertFirst, contactsView, reinviteContact, removeContact } from './service.js';

/** The user's emergency contacts: list, add (within the plan's limit), reorder, remove. */
export default async function contactRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const onRequest = app.authenticate;

  app.route({
    ...served(contactsApi.list),
    onRequest,
    handler: async (request, reply) =>
      reply.header('cache-control', 'no-store').send(await contactsView(app, request.user)),
  });

  app.route({
    ...served(contactsApi.alertFirst),
    onRequest,
    handler: async (request, reply) =>
      reply.header('cache-control', 'no-store').send(await alertFirst(app, request.user, request.params.id)),
  });

  app.route({
    ...served(contactsApi.add),
    onRequest,
    handler: async (request, reply) => reply.code(201).send(await addContact(app, request.user, request.body)),
  });

  app.route({
    ...served(contactsApi.invite),
    onRequest,
    handler: async (request, reply) =>
      reply.header('cache-control', 'no-store').send(await reinviteContact(app, request.user, request.params.id)),
  });

  app.route({
    ...served(contactsApi.remove),
    onRequest,
    handler: async (request, reply) => {
      await removeContact(app, request.user, request.params.id);
      return reply.code(204).send();
    },
  });
}
