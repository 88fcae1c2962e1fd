import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { LIVE_RETENTION_MS } from '../../../common/constants.js';
import liveEventsRoutes from './events-routes.js';
import { LiveHub } from './hub.js';
import livePageRoutes from './page-routes.js';
import livePublicRoutes from './public-routes.js';
import liveSenderRoutes from './sender-routes.js';
import { purgeLiveHistory } from './service.js';

export { contactKeyHash, contactPageUrl, livePageUrl, newContactKey } from './links.js';
export { addContactResponder, respondersOf } from './repository.js';
export { contactOnTheWay, resolveAlert } from './service.js';
export { liveState, shownResponder } from './view.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Tells open event streams (of every server process, with REDIS_URL) that an alert changed. */
    liveHub: LiveHub;
    /** Deletes live positions and responders older than 30 days; returns the rows deleted. */
    purgeLiveHistory(): Promise<number>;
  }
}

/**
 * After the alert: the live page and its API, the emergency page's position updates and
 * "I'm safe", and the periodic deletion of live history.
 */
export default fp(
  async function live(app: FastifyInstance) {
    const hub = new LiveHub();
    app.decorate('liveHub', hub);
    // With several server processes, a change made through one reaches the followers of all.
    if (app.config.REDIS_URL) {
      let warned = false;
      const disconnect = hub.relayThroughRedis(app.config.REDIS_URL, (error) => {
        if (!warned) app.log.warn({ err: error }, 'live relay through Redis failed; streams re-read every 5 s');
        warned = true;
      });
      app.addHook('onClose', async () => disconnect());
    }
    app.decorate('purgeLiveHistory', () => purgeLiveHistory(app, app.clock.now() - LIVE_RETENTION_MS));
    app.jobs.every('live-history-cleanup', () => app.purgeLiveHistory());

    await app.register(liveSenderRoutes);
    await app.register(livePublicRoutes);
    await app.register(liveEventsRoutes);
    await app.register(livePageRoutes);
  },
  { name: 'live', dependencies: ['database', 'security', 'alerts'] },
);
