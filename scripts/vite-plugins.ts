import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip as gzipCallback } from 'node:zlib';
import type { HtmlTagDescriptor, Plugin } from 'vite';
import { THEME_COLOR } from '../common/pwa.js';

const gzip = promisify(gzipCallback);
const brotli = promisify(brotliCompress);

const root = path.resolve(import.meta.dirname, '..');

/** The React modules the Preact pages import, and the preact/compat module each one becomes. */
export const PREACT_FOR_REACT: Readonly<Record<string, string>> = {
  react: 'preact/compat',
  'react-dom': 'preact/compat',
  'react-dom/client': 'preact/compat/client',
  'react/jsx-runtime': 'preact/compat/jsx-runtime',
};

/**
 * Builds the emergency page (src/alert/) on Preact's React-compatible API instead of React
 * DOM, which alone weighs more than the page's whole budget (bench/). The app
 * keeps React; the development server keeps React everywhere. Only imports written in
 * src/alert/ are redirected: a React component imported from elsewhere in src/ would bring
 * React DOM back, so the page imports only from src/alert/ and common/.
 */
export function preactForEmergencyPage(): Plugin {
  const alertDir = path.join(root, 'src', 'alert') + path.sep;
  // The live page (src/live/) opens from an SMS on any phone and network: just as light.
  const liveDir = path.join(root, 'src', 'live') + path.sep;
  return {
    name: 'alerta:preact-emergency-page',
    apply: 'build',
    enforce: 'pre',
    resolveId: {
      // Rolldown calls the hook only for these specifiers, not for every import of the build.
      filter: { id: /^react(-dom)?(\/client|\/jsx-runtime)?$/ },
      handler(source, importer, options) {
        const target = PREACT_FOR_REACT[source];
        if (!target || !(importer?.startsWith(alertDir) || importer?.startsWith(liveDir))) return null;
        return this.resolve(target, importer, { ...options, skipSelf: true });
      },
    },
  };
}

/** The query that marks the emergency page's own copy of a module (emergencyPageAlone). */
const OWN_COPY = '?emergency';
/** Vite's helper that each dynamic import of a build goes through (it fetches the chunk's CSS first). */
const PRELOAD_HELPER = '\0vite/preload-helper.js';

/**
 * Bundles the emergency page into chunks of its own: one script before its countdown, and those
 * it loads after. Every module its entry imports, down to Preact and the helper Vite loads
 * chunks with, is resolved to the page's own copy, so nothing it runs is shared with the app or
 * the live page. Shared, those modules went into five more files the page fetched as it
 * opened; on a new tab offline, the fetches kept the processor from the page's HTML, and the
 * countdown the HTML carries showed later (docs/PERFORMANCE.md).
 */
export function emergencyPageAlone(): Plugin {
  const entry = path.join(root, 'src', 'alert', 'main.tsx');
  return {
    name: 'alerta:emergency-page-alone',
    apply: 'build',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      const from = importer?.endsWith(OWN_COPY) ? importer.slice(0, -OWN_COPY.length) : importer;
      if (!from || (from === importer && importer !== entry)) return null;
      if (source === PRELOAD_HELPER) return `${PRELOAD_HELPER}${OWN_COPY}`;
      const resolved = await this.resolve(source, from, { ...options, skipSelf: true });
      if (!resolved || resolved.external || !/^[^\0?]+\.[cm]?[jt]sx?$/.test(resolved.id)) return resolved;
      return { ...resolved, id: `${resolved.id}${OWN_COPY}` };
    },
    async load(id) {
      if (id !== `${PRELOAD_HELPER}${OWN_COPY}`) return null;
      const { code } = await this.load({ id: PRELOAD_HELPER });
      if (code === null) throw new Error(`${PRELOAD_HELPER} has no code`);
      return code;
    },
  };
}

/** Writes a gzip and a Brotli copy beside the file `full` (nothing for a file under 1 kB). */
export async function compressBeside(full: string): Promise<void> {
  const content = await readFile(full);
  if (content.length < 1024) return;
  const [gz, br] = await Promise.all([
    gzip(content, { level: 9 }),
    brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  ]);
  await Promise.all([writeFile(`${full}.gz`, gz), writeFile(`${full}.br`, br)]);
}

/**
 * Writes a gzip and a Brotli copy beside every built text file, which the server sends to
 * browsers that accept them (@fastify/static `preCompressed`): a phone on a slow network
 * downloads a fraction of the bytes.
 */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'alerta:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    // Compressed on libuv's thread pool, all files at once: Brotli at quality 11 is slow.
    async writeBundle(_options, bundle) {
      const files = Object.keys(bundle).filter((file) => /\.(js|css|html|svg|webmanifest)$/.test(file));
      await Promise.all(files.map((file) => compressBeside(path.join(outDir, file))));
    },
  };
}

// After each entry's own charset and title, at the end of its head.
const meta = (name: string, content: string): HtmlTagDescriptor => ({
  tag: 'meta',
  attrs: { name, content },
  injectTo: 'head',
});
const link = (attrs: Record<string, string>): HtmlTagDescriptor => ({ tag: 'link', attrs, injectTo: 'head' });

/** What every page's head carries: the phone viewport, the theme colour and the favicons. */
const EVERY_PAGE = [
  meta('viewport', 'width=device-width, initial-scale=1, viewport-fit=cover'),
  meta('theme-color', THEME_COLOR),
  link({ rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' }),
  link({ rel: 'icon', href: '/icons/favicon-32.png', sizes: '32x32', type: 'image/png' }),
];

/** What a page that can be added to a home screen adds: the iPhone's icon and full-screen start. */
const INSTALLABLE = [
  link({ rel: 'apple-touch-icon', sizes: '180x180', href: '/icons/apple-touch-icon.png' }),
  meta('apple-mobile-web-app-capable', 'yes'),
  meta('mobile-web-app-capable', 'yes'),
  meta('apple-mobile-web-app-status-bar-style', 'default'),
];

/** The entries a person installs: the app and the emergency page (the live page is opened from an SMS). */
const INSTALLABLE_ENTRIES = new Set(['index.html', 'alert.html']);

/**
 * Writes the head tags the three HTML entries share into each, from one list, so an icon or
 * the theme colour changes in one place. Each entry keeps only its own: charset, title,
 * description, manifest, robots.
 */
export function sharedHead(): Plugin {
  return {
    name: 'alerta:shared-head',
    transformIndexHtml: {
      order: 'pre',
      handler: (_html, context) =>
        INSTALLABLE_ENTRIES.has(path.basename(context.filename)) ? [...EVERY_PAGE, ...INSTALLABLE] : EVERY_PAGE,
    },
  };
}

/** The stylesheets, module scripts and module preloads Vite writes into an entry's head. */
/** `css` as a style element of the page, with nothing in it that would end the element early. */
export const styleElement = (css: string) => `<style>${css.replace(/<\/style/gi, '<\\/style')}</style>`;
export const STYLESHEET = /<link rel="stylesheet"[^>]*href="\/([^"]+\.css)"[^>]*>/g;
const SCRIPTS = /\s*<(?:script type="module"[^>]*><\/script|link rel="modulepreload"[^>]*)>/g;

/**
 * Writes the emergency page's stylesheet into `alert.html` itself and its scripts after the
 * root: the countdown the HTML carries (common/emergency-shell.ts) is painted with the first
 * response, with no stylesheet to wait for over a slow network and nothing for the parser to
 * go through before it (module scripts run after parsing wherever they stand). The CSP allows
 * inline styles, not inline scripts.
 */
export function inlineEmergencyCss(): Plugin {
  return {
    name: 'alerta:inline-emergency-css',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        if (path.basename(context.filename) !== 'alert.html' || !context.bundle) return html;
        const bundle = context.bundle;
        const styled = html.replace(STYLESHEET, (tag, file: string) => {
          const asset = bundle[file];
          if (asset?.type !== 'asset') return tag;
          return styleElement(String(asset.source));
        });
        const scripts = styled.match(SCRIPTS) ?? [];
        return styled.replace(SCRIPTS, '').replace('</body>', () => `${scripts.join('')}\n  </body>`);
      },
    },
  };
}
