import type { FastifyInstance } from 'fastify';
import { limit } from '../../plugins/security.js';
import type { LiveHub } from './hub.js';
import { alertByPublicId } from './repository.js';
import { liveView, mapTiles } from './view.js';

/** Streams re-read this often, for changes made by another server process and for expiry (ms). */
const RECHECK_MS = 5000;
/** A comment keeps proxies from closing a quiet stream (ms). */
const HEARTBEAT_MS = 15_000;
/** Streams end after this long; EventSource reconnects on its own (ms). */
const STREAM_MAX_MS = 10 * 60_000;
const PUBLIC_ID = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * `GET /api/live/{public_id}/events`: server-sent events, one `live` event with the page's
 * data at once and again after every change (a position, a responder, the resolution).
 * The stream closes once the alert has ended; pages without EventSource poll instead.
 */
export default async function liveEventsRoutes(app: FastifyInstance, options: { hub: LiveHub }) {
  const tiles = mapTiles(app.config);
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
  });

  app.get<{ Params: { publicId: string } }>(
    '/api/live/:publicId/events',
    {
      config: {
        rateLimit: limit(app, { max: 30, timeWindow: 60_000, keyGenerator: (request) => `live-events:${request.ip}` }),
      },
    },
    async (request, reply) => {
      const { publicId } = request.params;
      const first = PUBLIC_ID.test(publicId) ? await alertByPublicId(app.db, publicId) : undefined;
      if (!first) return reply.code(404).send({ detail: 'This live page does not exist.', code: 'not_found' });
      const alertId = first.alert.id;

      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
      });
      raw.write('retry: 3000\n\n');

      let last = '';
      let closed = false;
      let chain: Promise<void> = Promise.resolve();
      const push = () => {
        chain = chain
          .then(async () => {
            if (closed) return;
            const current = await alertByPublicId(app.db, publicId);
            const view = current ? await liveView(app.db, current.alert, current.owner, app.clock.now(), tiles) : null;
            const data = JSON.stringify(view ?? { state: 'ended' });
            if (data !== last && !closed) {
              last = data;
              raw.write(`event: live\ndata: ${data}\n\n`);
            }
            if (!view || view.state === 'ended') close();
          })
          .catch((error: unknown) => {
            request.log.warn({ err: error }, 'live stream update failed');
          });
      };
      const unsubscribe = options.hub.subscribe(alertId, push);
      const recheck = setInterval(push, RECHECK_MS);
      const heartbeat = setInterval(() => raw.write(': ping\n\n'), HEARTBEAT_MS);
      const lifetime = setTimeout(() => close(), STREAM_MAX_MS);
      function close() {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(recheck);
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        open.delete(close);
        raw.end();
      }
      open.add(close);
      request.raw.on('close', close);
      push();
    },
  );
}
