import { fastifySSE } from '@fastify/sse';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { liveApi } from '../../../common/api/live.js';
import { served } from '../../../common/api/shared.js';
import { MINUTE } from '../../lib/time.js';
import { limit, throttled } from '../../plugins/security.js';
import { clientKey } from './public-routes.js';
import { currentLiveView, followedAlert } from './service.js';

/** Streams re-read this often, for changes made by another server process and for expiry (ms). */
const RECHECK_MS = 5000;
/** A comment keeps proxies from closing a quiet stream (ms). */
const HEARTBEAT_MS = 15_000;
/** Streams end after this long; EventSource reconnects on its own (ms). */
const STREAM_MAX_MS = 10 * MINUTE;
/** How long EventSource waits before reconnecting after a stream ends (ms). */
const RECONNECT_MS = 3000;
/**
 * Streams one client address keeps open on one alert (in this process): a few tabs and
 * phones, never the hundreds 30 new streams a minute for 10 minutes would otherwise hold,
 * each re-reading the database every RECHECK_MS.
 */
export const STREAMS_PER_CLIENT = 5;

/**
 * `GET /api/live/{public_id}/events`: server-sent events, one `live` event with the page's
 * data at once and again after every change (a position, a responder, the resolution).
 * The stream closes once the alert has ended; pages without EventSource poll instead.
 */
export default async function liveEventsRoutes(fastify: FastifyInstance) {
  // Framing, heartbeats and the client's disconnect come from @fastify/sse, for this route only.
  await fastify.register(fastifySSE, { heartbeatInterval: HEARTBEAT_MS });
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const open = new Set<() => void>();
  /** Open streams per (client address, alert). */
  const openPerClient = new Map<string, number>();
  const streamKey = clientKey('live-events');
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
  });

  app.route({
    ...served(liveApi.events),
    // No Accept negotiation: EventSource and plain fetch both get the stream. The data is
    // already JSON text, sent as it is.
    sse: { kind: 'manual', serializer: (text: string) => text },
    config: {
      rateLimit: limit(app, { max: 30, timeWindow: MINUTE, keyGenerator: clientKey('live-events') }),
    },
    handler: async (request, reply) => {
      const { publicId } = request.params;
      const { alert } = await followedAlert(app, publicId);
      const who = streamKey(request);
      const streams = openPerClient.get(who) ?? 0;
      if (streams >= STREAMS_PER_CLIENT) throw throttled(RECHECK_MS / 1000);
      openPerClient.set(who, streams + 1);

      const sse = reply.sse;
      sse.keepAlive();
      // Over the plugin's own: the charset, and never kept by a cache (the API's rule).
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store');

      let last = '';
      let closed = false;
      let chain: Promise<void> = Promise.resolve();
      const push = () => {
        chain = chain
          .then(async () => {
            if (closed) return;
            const view = await currentLiveView(app, publicId);
            const data = JSON.stringify(view);
            if (data !== last && !closed) {
              last = data;
              await sse.send({ event: 'live', data });
            }
            if (view.state === 'ended') close();
          })
          .catch((error: unknown) => {
            request.log.warn({ err: error }, 'live stream update failed');
          });
      };
      const unsubscribe = app.liveHub.subscribe(alert.id, push);
      const recheck = setInterval(push, RECHECK_MS);
      const lifetime = setTimeout(() => close(), STREAM_MAX_MS);
      function close() {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(recheck);
        clearTimeout(lifetime);
        open.delete(close);
        const left = (openPerClient.get(who) ?? 1) - 1;
        if (left > 0) openPerClient.set(who, left);
        else openPerClient.delete(who);
        sse.close();
      }
      open.add(close);
      // The client went away (or the plugin closed the stream).
      sse.onClose(close);
      await sse.send({ retry: RECONNECT_MS, data: undefined });
      push();
    },
  });
}
