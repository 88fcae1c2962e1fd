import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { checkinsApi } from '../../../common/api/checkins.js';
import { served } from '../../../common/api/shared.js';
import { DEVICE_KEY_HEADER } from '../../../common/constants.js';
import { MINUTE } from '../../lib/time.js';
import {
  carriesOwnerProof,
  ownerOf,
  ownerWithPlan,
  perTokenClient,
  provenForPathToken,
  requestingOwner,
  requireOwnerProof,
  type TokenOwner,
} from '../owner/index.js';
import { deviceKeyOf, subscribePush } from './push.js';
import { checkinByKey } from './repository.js';
import { checkinPosition, currentOf, endCheckin, extendCheckin, startCheckin } from './service.js';

/**
 * The check-in endpoints of the emergency page, limited per token and client address like the
 * live calls; the owner's proof passes the per-address ceiling a flooder filled. A link can
 * raise the alarm, only the owner can lower it: starting and reading the current check-in take
 * the link alone (which never reads the owner's note or the ids of the alert a check-in fired:
 * checkinView), and a start with the owner's proof is theirs; its position, an extension, "I'm safe" and push subscriptions need the owner's
 * proof (403 `owner_proof_required`), and a PIN when one is set. Only starting needs an active
 * plan and a confirmed e-mail: a check-in that runs is followed, moved and ended whatever
 * happens to the plan.
 */
export default async function checkinRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.decorateRequest('checkinOwner', null);
  const passesCeiling = (request: FastifyRequest) => provenForPathToken(app, request);
  /** The token's owner, when the request carries their proof: what lowering a check-in asks (403 otherwise). */
  const provenOwner = async (request: FastifyRequest, token: string) => {
    const owner = await ownerOf(app, token);
    await requireOwnerProof(app, request, owner.id);
    return owner;
  };

  app.route({
    ...served(checkinsApi.start),
    config: { rateLimit: perTokenClient(app, 'checkin-start', 10, MINUTE), passesCeiling },
    // A replayed key is answered with its check-in before any plan or e-mail check, as alerts are.
    preValidation: async (request) => {
      const owner = await requestingOwner(app, request.params.token, request.headers['idempotency-key'], checkinByKey);
      request.setDecorator('checkinOwner', owner);
    },
    handler: async (request, reply) => {
      const owner = request.getDecorator<TokenOwner>('checkinOwner');
      const { created, checkin } = await startCheckin(app, owner, {
        key: request.headers['idempotency-key'],
        body: request.body,
        proven: await carriesOwnerProof(app, request, owner.user.id),
      });
      return reply.code(created ? 201 : 200).send(checkin);
    },
  });

  app.route({
    ...served(checkinsApi.current),
    config: { rateLimit: perTokenClient(app, 'checkin-current', 60, MINUTE), passesCeiling },
    handler: async (request, reply) =>
      reply.send(
        await currentOf(app, await ownerOf(app, request.params.token), !(await provenForPathToken(app, request))),
      ),
  });

  app.route({
    ...served(checkinsApi.location),
    config: { rateLimit: perTokenClient(app, 'checkin-location', 30, MINUTE), passesCeiling },
    handler: async (request, reply) => {
      const owner = await ownerWithPlan(app, request.params.token);
      await requireOwnerProof(app, request, owner.user.id);
      await checkinPosition(app, owner, request.params.id, request.body);
      return reply.code(204).send();
    },
  });

  app.route({
    ...served(checkinsApi.extend),
    config: { rateLimit: perTokenClient(app, 'checkin-extend', 20, MINUTE), passesCeiling },
    handler: async (request, reply) =>
      reply.send(
        await extendCheckin(app, await provenOwner(request, request.params.token), request.params.id, request.body),
      ),
  });

  app.route({
    ...served(checkinsApi.done),
    config: { rateLimit: perTokenClient(app, 'checkin-done', 10, MINUTE), passesCeiling },
    handler: async (request, reply) =>
      reply.send(
        await endCheckin(app, await provenOwner(request, request.params.token), request.params.id, request.body.pin),
      ),
  });

  app.route({
    ...served(checkinsApi.subscribePush),
    config: { rateLimit: perTokenClient(app, 'push-subscribe', 10, MINUTE), passesCeiling },
    handler: async (request, reply) => {
      const owner = await provenOwner(request, request.params.token);
      const deviceKey = await deviceKeyOf(app, owner.id, request.headers[DEVICE_KEY_HEADER.toLowerCase()]);
      await subscribePush(app, owner.id, deviceKey, request.body);
      return reply.code(201).send();
    },
  });
}
