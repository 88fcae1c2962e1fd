import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { accountsApi } from '../../../common/api/accounts.js';
import { detailError } from '../../lib/errors.js';
import { escapeHtml, page } from '../../lib/html.js';
import { randomToken } from '../../lib/ids.js';
import { limit } from '../../plugins/security.js';
import { consumeOneTimeToken, findOneTimeToken } from '../accounts/repository.js';
import { subscriptionProfile } from '../billing/subscriptions.js';

export const SUBSCRIPTION_REQUIRED = 'An active subscription is required.';
/** New links a person can make per hour from the app. */
export const ROTATIONS_PER_HOUR = 5;

/** Replaces a user's personal alert token (when they have one): the old links stop working the moment this commits. */
export async function rotateToken(app: FastifyInstance, userId: string): Promise<string> {
  const token = randomToken(24);
  await app.db.updateTable('users').set({ token }).where('id', '=', userId).where('token', 'is not', null).execute();
  return token;
}

const NOT_ME = {
  ask: `<h1>Não fui eu · This wasn't me</h1>
<p>Criar novas ligações de emergência: as antigas deixam de funcionar de imediato. · Make new emergency links: the old ones stop working at once.</p>`,
  button: 'Criar novas ligações · Make new links',
  done: `<h1>Novas ligações criadas · New links made</h1>
<p>As ligações antigas já não funcionam. Abra o Alerta, em Configuração, e abra a nova ligação no seu telemóvel. · The old links no longer work. Open Alerta, Setup, and open the new link on your phone.</p>
<p><a href="/setup">Alerta</a></p>`,
  expired: `<h1>Ligação inválida ou expirada · Invalid or expired link</h1>
<p>Pode criar novas ligações em Configuração. · You can make new links from Setup.</p><p><a href="/setup">Alerta</a></p>`,
};

/** Pages for a person with a browser, not part of the API contract. */
const NOT_API = { schema: { hide: true } };

const html = (reply: FastifyReply, status: number, body: string) =>
  reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('x-robots-tag', 'noindex')
    .type('text/html; charset=utf-8')
    .send(page('Alerta', body));

/**
 * `POST /api/users/token/rotate/`: replaces the personal alert token (192 random bits,
 * URL-safe), at most ROTATIONS_PER_HOUR times an hour per account. The public alert routes
 * look the owner up by the token, so the old links stop working the moment this commits.
 * `/api/users/not-me/{key}/`: the owner's alert e-mail button; the page asks once more
 * (a POST), so a mail scanner that opens links never replaces the token.
 */
export default async function tokenRoutes(app: FastifyInstance) {
  const perAccount = limit(app, {
    max: ROTATIONS_PER_HOUR,
    timeWindow: 60 * 60_000,
    keyGenerator: (request) => `rotate:${request.user?.id ?? request.ip}`,
  });
  app.post(
    '/api/users/token/rotate/',
    {
      onRequest: app.authenticate,
      schema: accountsApi().rotateToken,
      config: { rateLimit: perAccount && { ...perAccount, hook: 'preHandler' } },
    },
    async (request, reply) => {
      const user = request.user;
      const profile = await subscriptionProfile(app.db, user, app.clock.now(), app.config);
      if (!profile.has_premium) throw detailError(402, SUBSCRIPTION_REQUIRED, 'subscription_required');
      return reply.header('cache-control', 'no-store').send({ token: await rotateToken(app, user.id) });
    },
  );

  await app.register(async (forms) => {
    await forms.register(formbody);
    forms.get<{ Params: { key: string } }>('/api/users/not-me/:key/', NOT_API, async (request, reply) => {
      const { key } = request.params;
      const row = key.length <= 200 ? await findOneTimeToken(app.db, key, 'rotate_token') : undefined;
      if (!row || row.used_at !== null || row.expires_at <= app.clock.now()) return html(reply, 404, NOT_ME.expired);
      return html(
        reply,
        200,
        `${NOT_ME.ask}<form method="post" action="/api/users/not-me/${escapeHtml(key)}/"><button class="primary" type="submit">${NOT_ME.button}</button></form>`,
      );
    });
    forms.post<{ Params: { key: string } }>('/api/users/not-me/:key/', NOT_API, async (request, reply) => {
      const { key } = request.params;
      const now = app.clock.now();
      const row = key.length <= 200 ? await findOneTimeToken(app.db, key, 'rotate_token') : undefined;
      if (!row || row.expires_at <= now || !(await consumeOneTimeToken(app.db, row.id, now))) {
        return html(reply, 404, NOT_ME.expired);
      }
      await rotateToken(app, row.user_id);
      return html(reply, 200, NOT_ME.done);
    });
  });
}
