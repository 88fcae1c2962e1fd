import type { FastifyInstance } from 'fastify';
import { detailError } from '../../lib/errors.js';
import { randomToken } from '../../lib/ids.js';
import { subscriptionProfile } from '../billing/subscriptions.js';

export const SUBSCRIPTION_REQUIRED = 'An active subscription is required.';

/**
 * `POST /api/users/token/rotate/`: replaces the personal alert token (192 random bits,
 * URL-safe). The public alert routes look the owner up by the token, so the old links
 * stop working the moment this commits.
 */
export default async function tokenRoutes(app: FastifyInstance) {
  app.post('/api/users/token/rotate/', { onRequest: app.authenticate }, async (request, reply) => {
    const user = request.user;
    const profile = await subscriptionProfile(app.db, user, app.clock.now(), app.config);
    if (!profile.has_premium) throw detailError(402, SUBSCRIPTION_REQUIRED, 'subscription_required');
    const token = randomToken(24);
    await app.db.updateTable('users').set({ token }).where('id', '=', user.id).execute();
    return reply.header('cache-control', 'no-store').send({ token });
  });
}
