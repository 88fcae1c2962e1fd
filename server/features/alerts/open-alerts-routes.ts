import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { openAlertsApi } from '../../../common/api/open-alerts.js';
import { served } from '../../../common/api/shared.js';
import { MINUTE } from '../../lib/time.js';
import { ownerOf, perTokenClient, provenForPathToken, requireOwnerProof } from '../owner/index.js';
import { openAlertsOf } from './open-alerts.js';

/** `GET …/{token}/open-alerts/`: only with the owner's proof (403 `owner_proof_required`). */
export default async function openAlertsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.route({
    ...served(openAlertsApi.list),
    config: {
      rateLimit: perTokenClient(app, 'open-alerts', 60, MINUTE),
      passesCeiling: (request) => provenForPathToken(app, request),
    },
    handler: async (request, reply) => {
      const owner = await ownerOf(app, request.params.token);
      await requireOwnerProof(app, request, owner.id);
      return reply.send(await openAlertsOf(app, owner.id));
    },
  });
}
