import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { LIVE_TRACKING_MS } from '../../../common/constants.js';
import type { User } from '../../db/schema.js';
import { iso } from '../../lib/dates.js';
import { detailError, fieldErrors, notFound, parseWith } from '../../lib/errors.js';
import { limit } from '../../plugins/security.js';
import { ownerByToken } from '../alerts/repository.js';
import { fixTime, fixTimeProblem } from '../alerts/schemas.js';
import { subscriptionProfile } from '../billing/subscriptions.js';
import type { LiveHub } from './hub.js';
import { livePageUrl } from './links.js';
import { addPosition, type LiveAlert, liveAlertOfUser, respondersOf } from './repository.js';
import { resolveAlert } from './resolve.js';
import { liveState } from './view.js';

const MINUTE = 60_000;
/** A fix may be a little older than the alert (the one it went out with). */
const FIX_SLACK_MS = 5 * MINUTE;
type Params = { Params: { token: string; id: string } };

const UNKNOWN_TOKEN = 'This alert link is unknown or has been replaced by a new one.';

const positionBody = z.object({
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  accuracy: z.number().min(0).max(1e6),
  captured_at: fixTime,
});
const resolveBody = z.object({ notify: z.boolean().default(false) });

/** Rate-limit keys hold a hash of the token, never the secret itself. */
const tokenKey = (request: FastifyRequest) =>
  createHash('sha256')
    .update((request.params as { token?: string }).token ?? '')
    .digest('base64url')
    .slice(0, 22);

/**
 * The emergency page's side of the live page (the token is the credential): position
 * updates while it stays open, the sender's view of who is on the way, and "I'm safe".
 */
export default async function liveSenderRoutes(app: FastifyInstance, options: { hub: LiveHub }) {
  const { hub } = options;
  const perToken = (name: string, max: number) =>
    limit(app, { max, timeWindow: MINUTE, keyGenerator: (request) => `${name}:${tokenKey(request)}` });

  async function ownedAlert(token: string, id: string): Promise<{ user: User; alert: LiveAlert }> {
    const user = await ownerByToken(app.db, token);
    if (!user) throw detailError(404, UNKNOWN_TOKEN, 'not_found');
    const alert = await liveAlertOfUser(app.db, user.id, id);
    if (!alert) throw notFound();
    return { user, alert };
  }

  // Every 30 s, or sooner when moving (at most every 10 s): 30 a minute leaves room for a queue replay.
  app.post<Params>(
    '/api/emergency/public/:token/alerts/:id/location/',
    { config: { rateLimit: perToken('live-location', 30) } },
    async (request, reply) => {
      const { user, alert } = await ownedAlert(request.params.token, request.params.id);
      const position = parseWith(positionBody, request.body);
      const now = app.clock.now();
      const created = Number(alert.created_at);
      if (alert.mode !== 'real') throw detailError(409, 'Test alerts have no live location.', 'not_real');
      const profile = await subscriptionProfile(app.db, user, now, app.config);
      if (!profile.gps_enabled) {
        throw detailError(402, 'Live location needs the premium plan or a trial.', 'gps_not_in_plan');
      }
      if (alert.resolved_at !== null) throw detailError(409, 'This alert has ended.', 'alert_resolved');
      if (now > created + LIVE_TRACKING_MS) {
        throw detailError(409, 'Live location stops 60 minutes after the alert.', 'tracking_over');
      }
      const problem = fixTimeProblem(position.captured_at, now);
      if (problem) throw fieldErrors({ captured_at: [problem] });
      if (position.captured_at < created - FIX_SLACK_MS) {
        throw fieldErrors({ captured_at: ['The fix time must be during the alert.'] });
      }
      await addPosition(app.db, alert.id, position, now);
      hub.publish(alert.id);
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ ...position, captured_at: iso(position.captured_at) });
    },
  );

  app.get<Params>(
    '/api/emergency/public/:token/alerts/:id/live/',
    { config: { rateLimit: perToken('live-sender', 120) } },
    async (request, reply) => {
      const { user, alert } = await ownedAlert(request.params.token, request.params.id);
      const now = app.clock.now();
      const profile = await subscriptionProfile(app.db, user, now, app.config);
      const created = Number(alert.created_at);
      const responders = await respondersOf(app.db, alert.id);
      return reply.header('cache-control', 'no-store').send({
        public_id: alert.public_id,
        live_url: alert.mode === 'real' ? livePageUrl(app.config.APP_URL, alert.public_id) : null,
        state: liveState(alert, now),
        resolved_at: alert.resolved_at === null ? null : iso(alert.resolved_at),
        tracking:
          alert.mode === 'real' &&
          profile.gps_enabled &&
          alert.resolved_at === null &&
          now <= created + LIVE_TRACKING_MS,
        tracking_until: iso(created + LIVE_TRACKING_MS),
        responders: responders.map((r) => ({ name: r.name, created_at: iso(r.created_at) })),
      });
    },
  );

  app.post<Params>(
    '/api/emergency/public/:token/alerts/:id/resolve/',
    { config: { rateLimit: perToken('live-resolve', 10) } },
    async (request, reply) => {
      const { user, alert } = await ownedAlert(request.params.token, request.params.id);
      const { notify } = parseWith(resolveBody, request.body);
      const { resolvedAt, queued } = await resolveAlert(app, alert, user, notify);
      hub.publish(alert.id);
      return reply.header('cache-control', 'no-store').send({
        state: 'resolved',
        resolved_at: iso(resolvedAt),
        all_clear_queued: queued,
      });
    },
  );
}
