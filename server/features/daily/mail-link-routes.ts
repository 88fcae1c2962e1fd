import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { asLanguage, type Language } from '../../../common/constants.js';
import type { User } from '../../db/schema.js';
import { escapeHtml, htmlPage, NOT_API } from '../../lib/html.js';
import { MINUTE } from '../../lib/time.js';
import { limit } from '../../plugins/security.js';
import { findById, hashSecret } from '../accounts/index.js';
import { ownerLanguage } from '../owner/index.js';
import { linkHolder } from './repository.js';
import { recordSignOfLife } from './service.js';

const TEXTS: Record<Language, { ask: string; button: string; done: string; expired: string }> = {
  pt: {
    ask: '<h1>Check-in diário</h1><p>Toque para dizer que está bem hoje.</p>',
    button: 'Estou bem',
    done: '<h1>Obrigado</h1><p>O seu check-in de hoje está feito. Ninguém é alertado.</p>',
    expired: '<h1>Ligação usada ou expirada</h1><p>Abra a sua página de emergência para fazer o check-in.</p>',
  },
  en: {
    ask: '<h1>Daily check-in</h1><p>Tap to say you are OK today.</p>',
    button: 'I’m OK',
    done: '<h1>Thank you</h1><p>Today’s check-in is done. Nobody is alerted.</p>',
    expired: '<h1>Link used or expired</h1><p>Open your emergency page to check in.</p>',
  },
};

/** The link's language (`?lang=`, set by the reminder): all that is left to know the owner by once it is spent. */
const languageOf = (user: User | undefined, asked: string | undefined): Language =>
  user ? ownerLanguage(user) : asLanguage(asked);

type LinkRequest = { Params: { link: string }; Querystring: { lang?: string } };

/**
 * The reminder e-mail's one-click link, `/api/daily/ok/{link}/?lang=`: the page asks once more (a
 * POST), so a mail scanner that opens links never checks the owner in. The link works once and
 * until the end of that day's grace; it only ever lowers today's alarm, never reads anything.
 */
export default async function dailyMailLinkRoutes(app: FastifyInstance) {
  const perAddress = limit(app, { max: 20, timeWindow: MINUTE, keyGenerator: (request) => `daily-link:${request.ip}` });
  const holderOf = async (link: string) => {
    const row = await linkHolder(app.db, hashSecret(link));
    const live = row && Number(row.link_expires_at) > app.clock.now();
    return { row: live ? row : undefined, user: row ? await findById(app.db, row.user_id) : undefined };
  };

  await app.register(async (forms) => {
    await forms.register(formbody);
    const options = { ...NOT_API, config: { rateLimit: perAddress } };
    forms.get<LinkRequest>('/api/daily/ok/:link/', options, async (request, reply) => {
      const { row, user } = await holderOf(request.params.link);
      const language = languageOf(user, request.query.lang);
      const texts = TEXTS[language];
      if (!row) return htmlPage(reply, 404, texts.expired);
      const action = `/api/daily/ok/${escapeHtml(request.params.link)}/?lang=${language}`;
      return htmlPage(
        reply,
        200,
        `${texts.ask}<form method="post" action="${action}"><button class="primary" type="submit">${texts.button}</button></form>`,
      );
    });
    forms.post<LinkRequest>('/api/daily/ok/:link/', options, async (request, reply) => {
      const { row, user } = await holderOf(request.params.link);
      const texts = TEXTS[languageOf(user, request.query.lang)];
      if (!row || !user) return htmlPage(reply, 404, texts.expired);
      // Spent in the check-in's own transaction, only while live: two clicks at once check in once.
      const done = await recordSignOfLife(app, user, app.clock.now(), hashSecret(request.params.link));
      if (!done) return htmlPage(reply, 404, texts.expired);
      return htmlPage(reply, 200, texts.done);
    });
  });
}
