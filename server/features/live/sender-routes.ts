import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { liveApi } from '../../../common/api/live.js';
import { served } from '../../../common/api/shared.js';
import { notFound } from '../../lib/errors.js';
import { MINUTE } from '../../lib/time.js';
import { carriesOwnerProof, perTokenClient, provenForPathToken } from '../alerts/owner-proof-routes.js';
import { addLivePosition, type OwnedAlert, resolveAlert, senderAlert, senderLive } from './service.js';

/**
 * The emergency page's side of the live page (the token is the credential): position
 * updates while it stays open, the sender's view of who is on the way, and "I'm safe".
 * Limited per token and client address, apart from everything the live link does.
 */
export default async function liveSenderRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Resolved from the path before the body is validated (preValidation), for the handler.
  app.decorateRequest('senderAlert', null);
  // The owner's proof (session or device key) lets these calls past the per-address ceiling a
  // flooder on the owner's address filled, as it does the alert itself.
  const passesCeiling = (request: FastifyRequest) => provenForPathToken(app, request);
  // An unknown token or alert is answered before the body is looked at. The owner's proven
  // alert is moved or ended only with the owner's proof: its public id is in every contact's
  // SMS, so a holder of the leaked link must not send false positions or a false all-clear.
  const preValidation = async (request: FastifyRequest<{ Params: { token: string; id: string } }>) => {
    const owned = await senderAlert(app, request.params.token, request.params.id);
    if (owned.alert.proven && !(await carriesOwnerProof(app, request, owned.user.id))) throw notFound();
    request.setDecorator('senderAlert', owned);
  };

  // Every 30 s, or sooner when moving (at most every 10 s): 30 a minute leaves room for a queue replay.
  app.route({
    ...served(liveApi.position),
    preValidation,
    config: { rateLimit: perTokenClient(app, 'live-location', 30, MINUTE), passesCeiling },
    handler: async (request, reply) =>
      reply.code(201).send(await addLivePosition(app, request.getDecorator<OwnedAlert>('senderAlert'), request.body)),
  });

  app.route({
    ...served(liveApi.sender),
    config: { rateLimit: perTokenClient(app, 'live-sender', 120, MINUTE), passesCeiling },
    handler: async (request, reply) =>
      reply.send(await senderLive(app, await senderAlert(app, request.params.token, request.params.id))),
  });

  app.route({
    ...served(liveApi.resolve),
    preValidation,
    config: { rateLimit: perTokenClient(app, 'live-resolve', 10, MINUTE), passesCeiling },
    handler: async (request, reply) =>
      reply.send(await resolveAlert(app, request.getDecorator<OwnedAlert>('senderAlert'), request.body.notify)),
  });
}
