import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { alertsRoutes } from '../../../common/api/routes.js';
import { notAuthenticated, notFound } from '../../lib/errors.js';
import { instrumentPorts } from './instrument.js';
import { createMetrics } from './registry.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** True when the request carries `Authorization: Bearer <token>`, compared in constant time. */
function bearerMatches(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization ?? '';
  const given = /^Bearer (\S+)$/i.exec(header)?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/**
 * `GET /metrics` in Prometheus's text format, for whoever holds METRICS_TOKEN: the metrics and
 * the counting are on only with one; without, the route answers 404 like any unknown path (the
 * app's pages would answer it otherwise). Outside /api: no app or page calls it.
 */
export default fp(
  async function metrics(app: FastifyInstance) {
    const token = app.config.METRICS_TOKEN;
    if (!token) {
      app.get('/metrics', async () => {
        throw notFound();
      });
      return;
    }
    const metrics = createMetrics({ db: app.db, now: () => app.clock.now() });
    instrumentPorts(app, metrics);

    app.addHook('onResponse', async (request, reply) => {
      // The route's pattern (`/api/emergency/public/:token/alerts/`), never the URL: a label
      // holding a token would hand it to whoever reads the metrics, and every token its own series.
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.httpDuration.observe(
        { method: request.method, route, status_code: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      if (reply.statusCode === 429) metrics.rateLimited.inc({ route });
      if (
        reply.statusCode === 201 &&
        request.method === alertsRoutes.send.method &&
        request.routeOptions.url === alertsRoutes.send.url
      ) {
        metrics.alertsStored.inc({ mode: (request.body as { mode?: string } | undefined)?.mode ?? 'real' });
      }
    });

    app.get('/metrics', async (request, reply) => {
      if (!bearerMatches(request, token)) throw notAuthenticated();
      reply.header('cache-control', 'no-store').type(metrics.registry.contentType);
      return metrics.scrape();
    });
  },
  { name: 'metrics', dependencies: ['database', 'clock'] },
);
