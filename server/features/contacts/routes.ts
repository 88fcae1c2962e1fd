import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { contactsApi } from '../../../common/api/contacts.js';
import { addContact, alertFirst, contactsView, removeContact } from './service.js';

/** The user's emergency contacts: list, add (within the plan's limit), reorder, remove. */
export default async function contactRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const onRequest = app.authenticate;

  app.get('/api/emergency/contacts/', { onRequest, schema: contactsApi.list }, async (request, reply) =>
    reply.header('cache-control', 'no-store').send(await contactsView(app, request.user)),
  );

  app.post(
    '/api/emergency/contacts/:id/alert-first/',
    { onRequest, schema: contactsApi.alertFirst },
    async (request, reply) =>
      reply.header('cache-control', 'no-store').send(await alertFirst(app, request.user, request.params.id)),
  );

  app.post('/api/emergency/contacts/', { onRequest, schema: contactsApi.add }, async (request, reply) =>
    reply.code(201).send(await addContact(app, request.user, request.body)),
  );

  app.delete('/api/emergency/contacts/:id/', { onRequest, schema: contactsApi.remove }, async (request, reply) => {
    await removeContact(app, request.user, request.params.id);
    return reply.code(204).send();
  });
}
