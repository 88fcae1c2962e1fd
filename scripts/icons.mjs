// Rasterises the one icon source (public/favicon.svg) into the PNGs the manifests and iOS
// need, with the Chromium the browser tests already use: no image library to install.
// Run: node scripts/icons.mjs (commit the PNGs it writes into public/icons/).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const root = path.resolve(import.meta.dirname, '..');
const source = readFileSync(path.join(root, 'public/favicon.svg'), 'utf8');
const outDir = path.join(root, 'public/icons');
const inner = source.replace(/^.*?<svg[^>]*>/s, '').replace(/<\/svg>\s*$/s, '');

// Maskable and Apple icons are cropped by the platform: full-bleed background, glyph inside
// the central 80 % safe zone.
const fullBleed = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" fill="#c62828"/><g transform="translate(51.2 51.2) scale(0.8)">${inner}</g></svg>`;

const targets = [
  { file: 'icon-192.png', size: 192, svg: source },
  { file: 'icon-512.png', size: 512, svg: source },
  { file: 'maskable-192.png', size: 192, svg: fullBleed },
  { file: 'maskable-512.png', size: 512, svg: fullBleed },
  { file: 'apple-touch-icon.png', size: 180, svg: fullBleed },
  { file: 'favicon-32.png', size: 32, svg: source },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  mkdirSync(outDir, { recursive: true });
  for (const { file, size, svg } of targets) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const dataUrl = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}</style><img src="${dataUrl}" width="${size}" height="${size}">`,
    );
    await page.locator('img').evaluate((img) => img.decode());
    writeFileSync(path.join(outDir, file), await page.screenshot({ omitBackground: true }));
    await page.close();
    console.log(`public/icons/${file} ${size}x${size}`);
  }
} finally {
  await browser.close();
}
