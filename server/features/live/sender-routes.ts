import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { liveApi } from '../../../common/api/live.js';
import { served } from '../../../common/api/shared.js';
import { MINUTE } from '../../lib/time.js';
import { perTokenClient, provenForPathToken, requireOwnerProof } from '../owner/index.js';
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
  // An unknown token or alert is answered (404) before the body is looked at, and then the
  // owner's proof where the call lowers the alarm (403 owner_proof_required): a link can raise
  // the alarm, only the owner can lower it. The link and an alert's public id (in every
  // contact's SMS) may be held by anyone, who must not send a false all-clear or false positions.
  const senderThen =
    (needsProof: (alert: OwnedAlert['alert']) => boolean) =>
    async (request: FastifyRequest<{ Params: { token: string; id: string } }>) => {
      const owned = await senderAlert(app, request.params.token, request.params.id);
      if (needsProof(owned.alert)) await requireOwnerProof(app, request, owned.user.id);
      request.setDecorator('senderAlert', owned);
    };

  // Every 30 s, or sooner when moving (at most every 10 s): 30 a minute leaves room for a queue replay.
  app.route({
    ...served(liveApi.position),
    // A position on an alert without proof adds to what the link raised; on the owner's
    // proven alert (pressed with proof, or fired by the server) it would move it.
    preValidation: senderThen((alert) => alert.proven === 1),
    config: { rateLimit: perTokenClient(app, 'live-location', 30, MINUTE), passesCeiling },
    handler: async (request, reply) =>
      reply.code(201).send(await addLivePosition(app, request.getDecorator<OwnedAlert>('senderAlert'), request.body)),
  });

  app.route({
    ...served(liveApi.sender),
    // The sender's view hands out the public id, which opens the live page: of the owner's
    // proven alert (pressed with proof, or fired by the server) only to the owner.
    preValidation: senderThen((alert) => alert.proven === 1),
    config: { rateLimit: perTokenClient(app, 'live-sender', 120, MINUTE), passesCeiling },
    handler: async (request, reply) =>
      reply.send(await senderLive(app, request.getDecorator<OwnedAlert>('senderAlert'))),
  });

  app.route({
    ...served(liveApi.resolve),
    // "I'm safe" ends the alert and cancels its calls, with or without the all-clear: always the owner's.
    preValidation: senderThen(() => true),
    config: { rateLimit: perTokenClient(app, 'live-resolve', 10, MINUTE), passesCeiling },
    handler: async (request, reply) =>
      reply.send(await resolveAlert(app, request.getDecorator<OwnedAlert>('senderAlert'), request.body.notify)),
  });
}
