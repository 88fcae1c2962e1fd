import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { RESPONDER_NAME_MAX } from '../../../common/constants.js';
import { iso } from '../../lib/dates.js';
import { detailError, notFound, parseWith } from '../../lib/errors.js';
import { limit } from '../../plugins/security.js';
import type { LiveHub } from './hub.js';
import { addResponder, alertByPublicId } from './repository.js';
import { liveState, liveView, mapTiles } from './view.js';

const MINUTE = 60_000;
/** A public id is 22 URL-safe characters today; anything unlike one is not looked up. */
const PUBLIC_ID = /^[A-Za-z0-9_-]{16,64}$/;
/** A live page with more responders than this is being abused; the rest are refused. */
const MAX_RESPONDERS = 50;
type Params = { Params: { publicId: string } };

const ackBody = z.object({
  name: z
    .string()
    // Control characters would only garble the pages that show the name.
    .transform((value) => value.replace(/\p{Cc}/gu, ' ').trim())
    .refine((value) => [...value].length <= RESPONDER_NAME_MAX, {
      message: `Ensure this field has no more than ${RESPONDER_NAME_MAX} characters.`,
    })
    .nullish(),
});

/** Per client address and alert, the public id hashed. */
const clientKey = (name: string) => (request: FastifyRequest) =>
  `${name}:${request.ip}:${createHash('sha256')
    .update((request.params as { publicId?: string }).publicId ?? '')
    .digest('base64url')
    .slice(0, 16)}`;

/**
 * The live page's API, reached by the alert's public id with no login: the page's data,
 * "I'm on my way", and a stream of updates (the events routes live in events-routes.ts).
 */
export default async function livePublicRoutes(app: FastifyInstance, options: { hub: LiveHub }) {
  const { hub } = options;

  async function found(publicId: string) {
    const result = PUBLIC_ID.test(publicId) ? await alertByPublicId(app.db, publicId) : undefined;
    if (!result) throw notFound('This live page does not exist.');
    return result;
  }

  app.get<Params>(
    '/api/live/:publicId/',
    { config: { rateLimit: limit(app, { max: 120, timeWindow: MINUTE, keyGenerator: clientKey('live-read') }) } },
    async (request, reply) => {
      const { alert, owner } = await found(request.params.publicId);
      const view = await liveView(app.db, alert, owner, app.clock.now(), mapTiles(app.config));
      return reply.header('cache-control', 'no-store').send(view);
    },
  );

  app.post<Params>(
    '/api/live/:publicId/ack/',
    { config: { rateLimit: limit(app, { max: 5, timeWindow: 10 * MINUTE, keyGenerator: clientKey('live-ack') }) } },
    async (request, reply) => {
      const { alert } = await found(request.params.publicId);
      const { name } = parseWith(ackBody, request.body);
      const now = app.clock.now();
      if (liveState(alert, now) !== 'active') throw detailError(409, 'This alert has ended.', 'alert_ended');
      if (!(await addResponder(app.db, alert.id, name ?? '', now, MAX_RESPONDERS))) {
        throw detailError(409, 'This alert already has enough people on the way.', 'too_many_responders');
      }
      hub.publish(alert.id);
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ name: name ?? '', created_at: iso(now) });
    },
  );
}
