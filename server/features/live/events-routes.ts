import { fastifySSE } from '@fastify/sse';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { liveApi } from '../../../common/api/live.js';
import { served } from '../../../common/api/shared.js';
import { detailError } from '../../lib/errors.js';
import { MINUTE } from '../../lib/time.js';
import { limit, throttled } from '../../plugins/security.js';
import { deliveriesOf } from '../alerts/index.js';
import { clientKey } from './public-routes.js';
import { currentLiveView, followedAlert } from './service.js';
import { LiveStreams, RECHECK_MS, type StreamSink } from './streams.js';

/** Streams end after this long; EventSource reconnects on its own (ms). */
const STREAM_MAX_MS = 10 * MINUTE;
/** How long EventSource waits before reconnecting after a stream ends (ms). */
const RECONNECT_MS = 3000;
const RETRY_FRAME = `retry: ${RECONNECT_MS}\n\n`;
/**
 * Streams one client address keeps open on one alert (in this process): a few tabs and
 * phones, never the hundreds 30 new streams a minute for 10 minutes would otherwise hold.
 */
export const STREAMS_PER_CLIENT = 5;

/**
 * `GET /api/live/{public_id}/events`: server-sent events, one `live` event with the page's
 * data at once and again after every change (a position, a responder, the resolution).
 * The stream closes once the alert has ended; pages without EventSource poll instead, and so
 * does a page refused a stream. An alert has at most one stream per contact, one for its
 * owner and LIVE_EXTRA_STREAMS more in each process: its changes are read once for them all
 * (streams.ts), and no one can make a change cost thousands of writes.
 */
export default async function liveEventsRoutes(fastify: FastifyInstance) {
  // Framing of the head and the client's disconnect come from @fastify/sse, for this route only.
  await fastify.register(fastifySSE);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const streams = new LiveStreams({
    read: (publicId) => currentLiveView(app, publicId),
    subscribe: (alertId, listener) => app.liveHub.subscribe(alertId, listener),
    onError: (error) => app.log.warn({ err: error }, 'live stream update failed'),
  });
  /** Open streams per (client address, alert). */
  const openPerClient = new Map<string, number>();
  const streamKey = clientKey('live-events');
  app.addHook('preClose', async () => streams.endAll());

  app.route({
    ...served(liveApi.events),
    // No Accept negotiation: EventSource and plain fetch both get the stream. The heartbeat is
    // the alert's, one timer for all its streams.
    sse: { kind: 'manual', heartbeat: false },
    config: {
      rateLimit: limit(app, { max: 30, timeWindow: MINUTE, keyGenerator: clientKey('live-events') }),
    },
    handler: async (request, reply) => {
      const { publicId } = request.params;
      const { alert } = await followedAlert(app, publicId);
      const contacts = (await deliveriesOf(app.db, [alert.id])).length;
      const who = streamKey(request);
      const mine = openPerClient.get(who) ?? 0;
      if (mine >= STREAMS_PER_CLIENT) throw throttled(RECHECK_MS / 1000);
      if (streams.count(alert.id) >= contacts + 1 + app.config.LIVE_EXTRA_STREAMS) {
        throw detailError(
          429,
          'This alert already has as many live followers as it can take: the page updates every few seconds instead.',
          'too_many_streams',
          { 'retry-after': String(RECHECK_MS / 1000) },
        );
      }
      openPerClient.set(who, mine + 1);

      const sse = reply.sse;
      sse.keepAlive();
      // Over the plugin's own: the charset, and never kept by a cache (the API's rule).
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store');
      sse.sendHeaders();
      const raw = reply.raw;
      raw.write(RETRY_FRAME);

      let closed = false;
      let unfollow = () => {};
      const lifetime = setTimeout(() => close(), STREAM_MAX_MS);
      function close(dropped = false) {
        if (closed) return;
        closed = true;
        unfollow();
        clearTimeout(lifetime);
        const left = (openPerClient.get(who) ?? 1) - 1;
        if (left > 0) openPerClient.set(who, left);
        else openPerClient.delete(who);
        // A client that stopped reading is cut, not sent its backlog first.
        if (dropped) raw.destroy();
        else sse.close();
      }
      const sink: StreamSink = {
        write(frame) {
          // What the client has not read stays buffered: one event more than the socket takes, no more.
          if (raw.destroyed || raw.writableNeedDrain) return false;
          raw.write(frame);
          return true;
        },
        end: close,
      };
      // The client went away (or the plugin closed the stream), maybe already.
      sse.onClose(() => close());
      if (!sse.isConnected) return close();
      unfollow = streams.follow(alert.id, publicId, sink);
    },
  });
}
