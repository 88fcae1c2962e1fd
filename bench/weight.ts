import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..');

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

/** One entry's weight: every JS and CSS file the browser loads before the entry runs. */
export interface EntryWeight {
  entry: string;
  files: { file: string; bytes: number; gzip: number }[];
  bytes: number;
  gzip: number;
}

/** Builds the web app (with its Vite manifest) into `outDir`, exactly as `npm run build` does. */
export function buildInto(outDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'node_modules/vite/bin/vite.js'),
        'build',
        '--outDir',
        outDir,
        '--emptyOutDir',
        '--manifest',
        '--logLevel',
        'warn',
      ],
      // A production build even when started from a test runner, which sets NODE_ENV=test.
      { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NODE_ENV: 'production' } },
    );
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite build exited with code ${code}`))));
  });
}

/** The Vite manifest of a build made with `--manifest`. */
export const readManifest = (outDir: string): Manifest =>
  JSON.parse(readFileSync(path.join(outDir, '.vite/manifest.json'), 'utf8')) as Manifest;

/**
 * The static import graph of an HTML entry in the Vite manifest: the entry chunk, every chunk
 * it imports (transitively; Vite modulepreloads them all) and their CSS. Dynamic imports are
 * lazy and left out, unless `lazy`: then every chunk the entry may load, and theirs, are in.
 */
export function entryFiles(manifest: Manifest, entry: string, { lazy = false } = {}): string[] {
  const files = new Set<string>();
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) throw new Error(`${key} is not in the Vite manifest`);
    files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
    if (lazy) for (const imported of chunk.dynamicImports ?? []) visit(imported);
  };
  visit(entry);
  return [...files].filter((file) => /\.(m?js|css)$/.test(file));
}

/** gzip sizes (zlib's default level, as a web server sends them) of an entry's JS and CSS in a build. */
export function measureEntry(outDir: string, entry: string): EntryWeight {
  const files = entryFiles(readManifest(outDir), entry).map((file) => {
    const content = readFileSync(path.join(outDir, file));
    return { file, bytes: content.length, gzip: gzipSync(content).length };
  });
  return {
    entry,
    files,
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    gzip: files.reduce((sum, f) => sum + f.gzip, 0),
  };
}
