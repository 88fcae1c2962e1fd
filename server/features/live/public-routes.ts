import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { liveApi } from '../../../common/api/live.js';
import { served } from '../../../common/api/shared.js';
import { MINUTE } from '../../lib/time.js';
import { Counter, clientAddress, limit } from '../../plugins/security.js';
import { contactKeyHash } from './links.js';
import { acknowledge, followedAlert, followLiveView, type OwnedAlert } from './service.js';

const hashed = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 16);
const publicIdOf = (request: FastifyRequest) => (request.params as { publicId?: string }).publicId ?? '';

/** Per client address (an IPv6 /64 as one) and alert (the public id hashed): what one address does on one link. */
export const clientKey = (name: string) => (request: FastifyRequest) =>
  `${name}:${clientAddress(request)}:${hashed(publicIdOf(request))}`;

/**
 * The live page's API, reached by the alert's public id with no login: the page's data and
 * "I'm on my way" (the stream of updates lives in events-routes.ts). Every limit is per
 * (alert, client address), or per contact key: nothing here touches the owner's limits
 * (sender-routes.ts), and one address cannot use up another's.
 */
export default async function livePublicRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Resolved from the path before the body is validated (preValidation), for the handler.
  app.decorateRequest('followedAlert', null);

  app.route({
    ...served(liveApi.view),
    config: { rateLimit: limit(app, { max: 120, timeWindow: MINUTE, keyGenerator: clientKey('live-read') }) },
    handler: async (request, reply) => reply.send(await followLiveView(app, request.params.publicId, request.query.c)),
  });

  // "On my way" without a contact key: 5 tries per 10 minutes per address and alert. With a
  // valid one: 10 per 10 minutes per contact, whatever the address (a café's shared address
  // full of strangers never blocks a contact).
  const strangers = new Counter(app, 'live-ack', 5, 10 * MINUTE, clientKey('ip'));
  const contacts = new Counter(app, 'live-ack-contact', 10, 10 * MINUTE, (request: FastifyRequest) => {
    const key = (request.body as { contact_key?: string | null } | undefined)?.contact_key ?? '';
    return `${hashed(publicIdOf(request))}:${contactKeyHash(key).slice(0, 22)}`;
  });
  app.route({
    ...served(liveApi.ack),
    // An unknown link is answered before the body is looked at.
    preValidation: async (request) => {
      request.setDecorator('followedAlert', await followedAlert(app, request.params.publicId));
    },
    handler: async (request, reply) => {
      const { created, responder } = await acknowledge(
        app,
        request.getDecorator<OwnedAlert>('followedAlert'),
        { name: request.body.name ?? '', contactKey: request.body.contact_key, client: clientAddress(request) },
        { contact: () => contacts.take(request), stranger: () => strangers.take(request) },
      );
      return reply.code(created ? 201 : 200).send(responder);
    },
  });
}
