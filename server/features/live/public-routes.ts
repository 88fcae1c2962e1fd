import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { liveApi } from '../../../common/api/live.js';
import { MINUTE } from '../../lib/time.js';
import { limit } from '../../plugins/security.js';
import { acknowledge, followedAlert, followLiveView, type OwnedAlert } from './service.js';

/** Per client address and alert, the public id hashed. */
const clientKey = (name: string) => (request: FastifyRequest) =>
  `${name}:${request.ip}:${createHash('sha256')
    .update((request.params as { publicId?: string }).publicId ?? '')
    .digest('base64url')
    .slice(0, 16)}`;

/**
 * The live page's API, reached by the alert's public id with no login: the page's data and
 * "I'm on my way" (the stream of updates lives in events-routes.ts).
 */
export default async function livePublicRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Resolved from the path before the body is validated (preValidation), for the handler.
  app.decorateRequest('followedAlert', null);

  app.get(
    '/api/live/:publicId/',
    {
      schema: liveApi.view,
      config: { rateLimit: limit(app, { max: 120, timeWindow: MINUTE, keyGenerator: clientKey('live-read') }) },
    },
    async (request, reply) => reply.send(await followLiveView(app, request.params.publicId)),
  );

  app.post(
    '/api/live/:publicId/ack/',
    {
      schema: liveApi.ack,
      // An unknown link is answered before the body is looked at.
      preValidation: async (request) => {
        request.setDecorator('followedAlert', await followedAlert(app, request.params.publicId));
      },
      config: { rateLimit: limit(app, { max: 5, timeWindow: 10 * MINUTE, keyGenerator: clientKey('live-ack') }) },
    },
    async (request, reply) =>
      reply
        .code(201)

        .send(await acknowledge(app, request.getDecorator<OwnedAlert>('followedAlert'), request.body.name)),
  );
}
