import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { asLanguage } from '../../../common/constants.js';
import { BACKGROUND_COLOR, MANIFEST_ICONS, PRODUCT_NAME, THEME_COLOR } from '../../../common/pwa.js';
import { notFound } from '../../lib/errors.js';
import { MINUTE } from '../../lib/time.js';
import { limit } from '../../plugins/security.js';
import { ownerByToken } from '../owner/index.js';

type Mode = 'public' | 'test';

const NAMES: Record<Mode, Record<'pt' | 'en', { name: string; short: string; description: string }>> = {
  public: {
    pt: {
      name: `${PRODUCT_NAME} · Emergência`,
      short: 'Emergência',
      description: 'Abre e envia o alerta às pessoas em quem confia.',
    },
    en: {
      name: `${PRODUCT_NAME} · Emergency`,
      short: 'Emergency',
      description: 'Opens and sends the alert to the people you trust.',
    },
  },
  test: {
    pt: { name: `${PRODUCT_NAME} · Teste`, short: 'Teste', description: 'Verifica se o alerta está pronto.' },
    en: { name: `${PRODUCT_NAME} · Test`, short: 'Test', description: 'Checks that the alert is ready.' },
  },
};

const params = z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{16,200}$/) });

/** The web manifest of one emergency link: installing it puts that link itself on the home screen. */
export function emergencyManifest(mode: Mode, token: string, language: string) {
  const lang = asLanguage(language);
  const texts = NAMES[mode][lang];
  const page = `/${mode}/${token}/`;
  return {
    // Its own id, so the emergency icon installs beside the app rather than replacing it.
    id: page,
    name: texts.name,
    short_name: texts.short,
    description: texts.description,
    start_url: page,
    scope: page,
    display: 'standalone',
    orientation: 'portrait',
    background_color: BACKGROUND_COLOR,
    theme_color: THEME_COLOR,
    lang,
    icons: MANIFEST_ICONS,
  };
}

/** `GET /public/{token}/manifest.webmanifest` and `/test/{token}/manifest.webmanifest`, for a live token only. */
export default async function emergencyPageRoutes(app: FastifyInstance) {
  for (const mode of ['public', 'test'] as const) {
    app.get(
      `/${mode}/:token/manifest.webmanifest`,
      { config: { rateLimit: limit(app, { max: 60, timeWindow: MINUTE }) } },
      async (request, reply) => {
        const parsed = params.safeParse(request.params);
        if (!parsed.success) throw notFound();
        const owner = await ownerByToken(app.db, parsed.data.token);
        if (!owner) throw notFound();
        return reply
          .type('application/manifest+json')
          .header('cache-control', 'no-cache')
          .send(emergencyManifest(mode, parsed.data.token, owner.language));
      },
    );
  }
}
