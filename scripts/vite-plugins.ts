import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip as gzipCallback } from 'node:zlib';
import type { Plugin } from 'vite';

const gzip = promisify(gzipCallback);
const brotli = promisify(brotliCompress);

const root = path.resolve(import.meta.dirname, '..');

/**
 * Builds the emergency page (src/alert/) on Preact's React-compatible API instead of React
 * DOM, which alone weighs about 60 kB gzip: most of the page's 70 kB budget (bench/). The app
 * keeps React; the development server keeps React everywhere. Only imports written in
 * src/alert/ are redirected: a React component imported from elsewhere in src/ would bring
 * React DOM back, so the page imports only from src/alert/ and common/.
 */
export function preactForEmergencyPage(): Plugin {
  const alertDir = path.join(root, 'src', 'alert') + path.sep;
  // The live page (src/live/) opens from an SMS on any phone and network: just as light.
  const liveDir = path.join(root, 'src', 'live') + path.sep;
  const targets: Record<string, string> = {
    react: 'preact/compat',
    'react-dom': 'preact/compat',
    'react-dom/client': 'preact/compat/client',
    'react/jsx-runtime': 'preact/compat/jsx-runtime',
  };
  return {
    name: 'alerta:preact-emergency-page',
    apply: 'build',
    enforce: 'pre',
    resolveId: {
      // Rolldown calls the hook only for these specifiers, not for every import of the build.
      filter: { id: /^react(-dom)?(\/client|\/jsx-runtime)?$/ },
      handler(source, importer, options) {
        const target = targets[source];
        if (!target || !(importer?.startsWith(alertDir) || importer?.startsWith(liveDir))) return null;
        return this.resolve(target, importer, { ...options, skipSelf: true });
      },
    },
  };
}

/**
 * Writes a gzip and a Brotli copy beside every built text file, which the server sends to
 * browsers that accept them (@fastify/static `preCompressed`): a phone on a slow network
 * downloads a quarter of the bytes.
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
      await Promise.all(
        files.map(async (file) => {
          const full = path.join(outDir, file);
          const content = await readFile(full);
          if (content.length < 1024) return;
          const [gz, br] = await Promise.all([
            gzip(content, { level: 9 }),
            brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
          ]);
          await Promise.all([writeFile(`${full}.gz`, gz), writeFile(`${full}.br`, br)]);
        }),
      );
    },
  };
}
