import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import react from '@vitejs/plugin-react';
import { build, type LogLevel, type Plugin } from 'vite';
import { PRERENDERED_ROUTES, prerenderedFile, prerenderKey } from '../common/app-routes.js';
import { LANGUAGES, type Language } from '../common/constants.js';
import { compressBeside, STYLESHEET, styleElement } from './vite-plugins.js';

const root = path.resolve(import.meta.dirname, '..');

/** While the build draws the pages no service worker is registered: the app's hook, answering as before one is. */
const NO_WORKER_YET = `export function useRegisterSW() {
  return { needRefresh: [false, () => {}], offlineReady: [false, () => {}], updateServiceWorker: async () => {} };
}`;

/** `text` as an attribute's value. */
const attribute = (text: string) => text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The stylesheets an entry links, written into it (the CSP allows inline styles, not inline scripts). */
async function withInlineStyles(html: string, outDir: string): Promise<string> {
  const sheets = new Map<string, string>();
  for (const [, file] of html.matchAll(STYLESHEET)) {
    if (file) sheets.set(file, await readFile(path.join(outDir, file), 'utf8'));
  }
  return html.replace(STYLESHEET, (tag, file: string) => {
    const css = sheets.get(file);
    return css === undefined ? tag : styleElement(css);
  });
}

/**
 * Draws the app's public pages (PRERENDERED_ROUTES, common/app-routes.ts) once per language
 * after the build, with the app's own components rendered by React DOM's server renderer, into
 * `dist/pages/`. Each copy is `index.html` with the page in its root, the stylesheet in its head
 * and the app's scripts fetched at low priority: a first visit over a slow network shows the page
 * as soon as the HTML arrives instead of after the app's script. The server sends them
 * (server/plugins/static.ts); the app takes the drawn page over (src/main.tsx). The service
 * worker keeps answering with `index.html`.
 */
export function prerenderPages(): Plugin {
  let outDir = '';
  let drawing = false;
  let logLevel: LogLevel = 'info';
  return {
    name: 'alerta:prerender-pages',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      drawing = Boolean(config.build.ssr);
      logLevel = config.logLevel ?? logLevel;
    },
    async closeBundle(error) {
      // Nothing to draw from a build that failed (its index.html may be an earlier one).
      if (drawing || error) return;
      // Inside the project, so the drawing code finds React and the rest in node_modules; a
      // folder of its own, as two builds may run at once (the tests').
      await mkdir(path.join(root, 'node_modules/.tmp'), { recursive: true });
      const serverDir = await mkdtemp(path.join(root, 'node_modules/.tmp/prerender-'));
      try {
        await drawPages(serverDir);
      } finally {
        await rm(serverDir, { recursive: true, force: true });
      }
    },
  };

  /** Builds the drawing code into `serverDir`, then draws each page in each language into the build. */
  async function drawPages(serverDir: string): Promise<void> {
    await build({
      configFile: false,
      root,
      logLevel: logLevel === 'info' ? 'warn' : logLevel,
      plugins: [
        react(),
        {
          name: 'alerta:no-worker-while-drawing',
          resolveId: (id) => (id === 'virtual:pwa-register/react' ? '\0no-worker' : null),
          load: (id) => (id === '\0no-worker' ? NO_WORKER_YET : null),
        },
      ],
      build: { ssr: 'src/prerender.tsx', outDir: serverDir, emptyOutDir: true, sourcemap: false },
    });
    const { render } = (await import(pathToFileURL(path.join(serverDir, 'prerender.js')).href)) as {
      render: (route: string, language: Language) => Promise<{ html: string; description: string }>;
    };
    // The drawn page needs no script to be painted: the app's scripts come after the page.
    const template = (await withInlineStyles(await readFile(path.join(outDir, 'index.html'), 'utf8'), outDir)).replace(
      /<(script type="module"|link rel="modulepreload")/g,
      '<$1 fetchpriority="low"',
    );
    const year = new Date().getFullYear();
    await mkdir(path.join(outDir, 'pages'), { recursive: true });
    for (const route of PRERENDERED_ROUTES) {
      for (const language of LANGUAGES) {
        const { html: page, description } = await render(route, language);
        const html = template
          .replace(/<html lang="[^"]*">/, `<html lang="${language}">`)
          .replace(
            /<meta name="description" content="[^"]*"/,
            () => `<meta name="description" content="${attribute(description)}"`,
          )
          .replace(
            '<div id="root"></div>',
            () => `<div id="root" data-prerendered="${prerenderKey(language, year, route)}">${page}</div>`,
          );
        if (!html.includes(page)) throw new Error(`index.html has no empty root to draw ${route} into`);
        const file = path.join(outDir, prerenderedFile(route, language));
        await writeFile(file, html);
        await compressBeside(file);
      }
    }
  }
}
