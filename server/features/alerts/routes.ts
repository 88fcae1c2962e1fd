import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { alertsApi } from '../../../common/api/alerts.js';
import { served } from '../../../common/api/shared.js';
import { MINUTE } from '../../lib/time.js';
import { carriesOwnerProof, perTokenClient, provenForPathToken, requireOwnerProof } from '../owner/index.js';
import { type AlertingOwner, alertingOwner } from './alerting-owner.js';
import { perTokenCharge } from './limits.js';
import { emergencyPage } from './page.js';
import { alertStatus, type SendAlertDeps, sendAlert } from './service.js';

/** The public alert endpoints (DESIGN.md §3): the token is the credential. */
export default async function alertRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Resolved from the path before the body is validated (preValidation), for the handler.
  app.decorateRequest('alertOwner', null);

  app.route({
    ...served(alertsApi.page),
    // Per token and address: a link holder reading it elsewhere never uses up the owner's page;
    // the owner's proof passes the ceiling a flooder on their address filled.
    config: {
      rateLimit: perTokenClient(app, 'page', 60, MINUTE),
      passesCeiling: (request) => provenForPathToken(app, request),
    },
    // The contacts' full numbers only to the owner: a link holder sees them masked.
    handler: async (request, reply) =>
      reply.send(
        await emergencyPage(app, request.params.token, { fullNumbers: await provenForPathToken(app, request) }),
      ),
  });

  const sending: SendAlertDeps = {
    db: app.db,
    dialect: app.dialect,
    clock: app.clock,
    config: app.config,
    dispatcher: app.dispatcher,
    background: app.background,
    jobs: app.jobs,
    mail: app.mail,
    log: app.log,
    tokens: app.tokens,
    // Test SMS 5 per hour per token, charged by the service for new link-only test alerts only.
    chargeTestLimit: perTokenCharge(app, 'send-test', 5, 60 * MINUTE),
  };
  app.route({
    ...served(alertsApi.send),
    // The owner's proven alert passes the per-address ceiling a flooder on their address filled.
    config: { passesCeiling: (request) => provenForPathToken(app, request) },
    // The token is the credential: an unknown one, a lapsed plan or an unconfirmed e-mail
    // are answered before the request itself is looked at, except that a replayed
    // Idempotency-Key is answered with its alert before any plan check.
    preValidation: async (request) => {
      const owner = await alertingOwner(app, request.params.token, request.headers['idempotency-key']);
      request.setDecorator('alertOwner', owner);
    },
    handler: async (request, reply) => {
      const owner = request.getDecorator<AlertingOwner>('alertOwner');
      const proven = await carriesOwnerProof(app, request, owner.user.id);
      const { created, alert } = await sendAlert(sending, owner, {
        token: request.params.token,
        key: request.headers['idempotency-key'],
        body: request.body,
        proven,
      });
      return reply.code(created ? 201 : 200).send(alert);
    },
  });

  app.route({
    ...served(alertsApi.get),
    config: {
      rateLimit: perTokenClient(app, 'status', 60, MINUTE),
      passesCeiling: (request) => provenForPathToken(app, request),
    },
    handler: async (request, reply) =>
      reply.send(
        await alertStatus(app, request.params.token, request.params.id, (userId) =>
          requireOwnerProof(app, request, userId),
        ),
      ),
  });
}
