import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dailyApi } from '../../../common/api/daily.js';
import { served } from '../../../common/api/shared.js';
import { notAuthenticated } from '../../lib/errors.js';
import { MINUTE } from '../../lib/time.js';
import { findById } from '../accounts/index.js';
import { ownerOf, perTokenClient, provenForPathToken, requireOwnerProof } from '../owner/index.js';
import { dailyFor, dailyOk, setDaily } from './service.js';

/**
 * The owner sets the schedule with their session (`/api/users/me/daily-checkin/`); "I'm OK
 * today" comes from the emergency page or a notification under the personal link, and, as it
 * lowers the alarm, only with the owner's proof (403 `owner_proof_required` for a link alone).
 */
export default async function dailyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const passesCeiling = (request: FastifyRequest) => provenForPathToken(app, request);
  /** The token's owner, when the request carries their proof (403 otherwise). */
  const provenOwner = async (token: string, request: FastifyRequest) => {
    const owner = await ownerOf(app, token);
    await requireOwnerProof(app, request, owner.id);
    return owner;
  };
  const me = async (id: string) => {
    const user = await findById(app.db, id);
    if (!user) throw notAuthenticated();
    return user;
  };

  app.route({
    ...served(dailyApi.get),
    onRequest: app.authenticate,
    handler: async (request) => dailyFor(app, await me(request.user.id)),
  });

  app.route({
    ...served(dailyApi.put),
    onRequest: app.authenticate,
    handler: async (request) => setDaily(app, await me(request.user.id), request.body),
  });

  app.route({
    ...served(dailyApi.status),
    config: { rateLimit: perTokenClient(app, 'daily-status', 30, MINUTE), passesCeiling },
    handler: async (request) => dailyFor(app, await provenOwner(request.params.token, request)),
  });

  app.route({
    ...served(dailyApi.ok),
    config: { rateLimit: perTokenClient(app, 'daily-ok', 20, MINUTE), passesCeiling },
    handler: async (request) => {
      const owner = await provenOwner(request.params.token, request);
      const at = request.body.at ? Date.parse(request.body.at) : null;
      return dailyOk(app, owner, { at, notify: request.body.notify });
    },
  });
}
