import { existsSync } from 'node:fs';
import path from 'node:path';
import { fastifyCookie } from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isAppRoute, PRERENDERED_ROUTES, type PrerenderedRoute, prerenderedFile } from '../../common/app-routes.js';
import { asLanguage, DEFAULT_LANGUAGE, LANG_COOKIE, LANGUAGES } from '../../common/constants.js';
import { emergencyHtml } from './emergency-html.js';

const API_PREFIXES = ['/api/', '/dev/'];
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the built app from `dist/`: hashed assets cached for a year, everything else
 * revalidated; `alert.html` for the emergency links (the real one with its countdown already
 * in it: emergency-html.ts), the pages the build drew for the public app routes (in the
 * visitor's language), `index.html` for other app routes (and, with a 404, for other page
 * addresses, where the app shows its not-found page), and JSON 404s for unknown API paths.
 * `drawnRoutes`: the drawn pages this server may send (all by default).
 */
export default fp(
  async function staticFiles(
    app: FastifyInstance,
    options: { distDir: string; drawnRoutes?: readonly PrerenderedRoute[] },
  ) {
    const { distDir } = options;
    const built = existsSync(path.join(distDir, 'index.html'));
    if (built) {
      await app.register(fastifyStatic, {
        root: distDir,
        wildcard: false,
        index: false,
        cacheControl: false,
        // The build writes .br and .gz copies (scripts/vite-plugins.ts): sent to browsers that accept them.
        preCompressed: true,
        setHeaders(reply, filePath) {
          const relative = path.relative(distDir, filePath);
          reply.header('cache-control', relative.startsWith('assets') ? IMMUTABLE : 'no-cache');
          // A cache in between must not hand the Brotli copy to a browser that asked for gzip,
          // nor a drawn page in one language to a visitor who chose the other (their cookie).
          reply.header('vary', relative.startsWith('pages') ? 'cookie, accept-encoding' : 'accept-encoding');
          if (relative === 'sw.js') reply.header('service-worker-allowed', '/');
        },
      });
      const serveAlert = (_request: FastifyRequest, reply: FastifyReply) =>
        reply.header('cache-control', 'no-cache').sendFile('alert.html');
      app.get('/public/:token/', emergencyHtml(app, distDir));
      app.get('/test/:token/', serveAlert);
      // The same pages without the trailing slash, so a hand-typed link still works.
      app.get('/public/:token', (request, reply) => reply.redirect(`${request.url.split('?')[0]}/`));
      app.get('/test/:token', (request, reply) => reply.redirect(`${request.url.split('?')[0]}/`));
      for (const route of options.drawnRoutes ?? PRERENDERED_ROUTES) {
        const drawn = new Map(
          LANGUAGES.filter((language) => existsSync(path.join(distDir, prerenderedFile(route, language)))).map(
            (language) => [language, prerenderedFile(route, language)],
          ),
        );
        app.get(route, (request, reply) => {
          const chosen = asLanguage(fastifyCookie.parse(request.headers.cookie ?? '')[LANG_COOKIE]);
          // A query may change what the page shows: the app draws it then, as it draws a page
          // of a build without the drawn copies.
          const file = request.url.includes('?') ? undefined : (drawn.get(chosen) ?? drawn.get(DEFAULT_LANGUAGE));
          // setHeaders above marks it no-cache, as every page.
          return reply.sendFile(file ?? 'index.html');
        });
      }
    } else {
      app.log.warn(`no build found in ${distDir}: run "npm run build" to serve the web app`);
    }

    app.setNotFoundHandler(async (request, reply) => {
      const pathname = request.url.split('?')[0] ?? '/';
      const isApi = API_PREFIXES.some((prefix) => pathname.startsWith(prefix));
      const wantsPage = request.method === 'GET' || request.method === 'HEAD';
      const looksLikeFile = /\.[a-z0-9]+$/i.test(pathname);
      if (built && wantsPage && !isApi && !looksLikeFile) {
        // Any other address gets the app too, which shows its not-found page, with a real 404.
        return reply
          .code(isAppRoute(pathname) ? 200 : 404)
          .header('cache-control', 'no-cache')
          .sendFile('index.html');
      }
      return reply.code(404).send({ detail: 'Not found.', code: 'not_found' });
    });
  },
  { name: 'static' },
);
