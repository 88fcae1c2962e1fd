import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { accountsApi } from '../../../common/api/accounts.js';
import { served } from '../../../common/api/shared.js';
import { escapeHtml, htmlPage, NOT_API } from '../../lib/html.js';
import { HOUR } from '../../lib/time.js';
import { limit } from '../../plugins/security.js';
import { notMeKeyState, ROTATIONS_PER_HOUR, rotateByNotMeKey, rotateOwnToken } from './token.js';

const NOT_ME = {
  ask: `<h1>Não fui eu · This wasn't me</h1>
<p>Criar novas ligações de emergência: as antigas deixam de funcionar de imediato. · Make new emergency links: the old ones stop working at once.</p>`,
  button: 'Criar novas ligações · Make new links',
  done: `<h1>Novas ligações criadas · New links made</h1>
<p>As ligações antigas já não funcionam. Abra o Alerta, em Configuração, e abra a nova ligação no seu telemóvel. · The old links no longer work. Open Alerta, Setup, and open the new link on your phone.</p>
<p><a href="/setup">Alerta</a></p>`,
  used: `<h1>Ligação já usada · Link already used</h1>
<p>Esta ligação já foi usada, ou foram criadas novas ligações depois deste e-mail: já não muda nada. · This link was used already, or new links were made after this e-mail: it changes nothing now.</p>
<p>Se continua a receber alertas que não enviou, crie novas ligações em Configuração. · If you still get alerts you did not send, make new links from Setup.</p><p><a href="/setup">Alerta</a></p>`,
  expired: `<h1>Ligação inválida ou expirada · Invalid or expired link</h1>
<p>Pode criar novas ligações em Configuração. · You can make new links from Setup.</p><p><a href="/setup">Alerta</a></p>`,
};

/**
 * `POST /api/users/token/rotate/`: replaces the personal alert token (192 random bits,
 * URL-safe), at most ROTATIONS_PER_HOUR times an hour per account. The public alert routes
 * look the owner up by the token, so the old links stop working the moment this commits.
 * `/api/users/not-me/{key}/`: the owner's alert e-mail button; the page asks once more
 * (a POST), so a mail scanner that opens links never replaces the token. A key spent, or
 * mailed before the links were last replaced, answers 410; an unknown or expired one 404.
 */
export default async function tokenRoutes(app: FastifyInstance) {
  const perAccount = limit(app, {
    max: ROTATIONS_PER_HOUR,
    timeWindow: HOUR,
    keyGenerator: (request) => `rotate:${request.user?.id ?? request.ip}`,
  });
  app.route({
    ...served(accountsApi.rotateToken),
    onRequest: app.authenticate,
    config: { rateLimit: perAccount && { ...perAccount, hook: 'preHandler' } },
    handler: async (request) => ({ token: await rotateOwnToken(app, request.user) }),
  });

  await app.register(async (forms) => {
    await forms.register(formbody);
    forms.get<{ Params: { key: string } }>('/api/users/not-me/:key/', NOT_API, async (request, reply) => {
      const { key } = request.params;
      const state = await notMeKeyState(app, key);
      if (state === 'used') return htmlPage(reply, 410, NOT_ME.used);
      if (state === 'unknown') return htmlPage(reply, 404, NOT_ME.expired);
      return htmlPage(
        reply,
        200,
        `${NOT_ME.ask}<form method="post" action="/api/users/not-me/${escapeHtml(key)}/"><button class="primary" type="submit">${NOT_ME.button}</button></form>`,
      );
    });
    forms.post<{ Params: { key: string } }>('/api/users/not-me/:key/', NOT_API, async (request, reply) => {
      const result = await rotateByNotMeKey(app, request.params.key);
      if (result === 'rotated') return htmlPage(reply, 200, NOT_ME.done);
      return result === 'used' ? htmlPage(reply, 410, NOT_ME.used) : htmlPage(reply, 404, NOT_ME.expired);
    });
  });
}
