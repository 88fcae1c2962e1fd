import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRERENDERED_ROUTES, type PrerenderedRoute, prerenderedFile, prerenderKey } from '../../common/app-routes.js';
import { LANGUAGES, type Language } from '../../common/constants.js';
import { buildApp } from './built-app.js';

/** Each drawn page's heading in each language (src/i18n/locales/). */
const HEADING: Record<PrerenderedRoute, Record<Language, string>> = {
  '/pricing': { pt: 'Preços', en: 'Pricing' },
  '/login': { pt: 'Entrar', en: 'Log in' },
  '/register': { pt: 'Criar conta', en: 'Create account' },
  '/legal': { pt: 'Termos de utilização', en: 'Terms of use' },
  '/privacy': { pt: 'Política de privacidade', en: 'Privacy policy' },
};
const NAVIGATION: Record<Language, string> = { pt: 'Navegação principal', en: 'Main navigation' };
const DESCRIPTION: Record<Language, string> = {
  pt: 'Um toque envia um SMS com a sua localização às pessoas em quem confia.',
  en: 'One tap sends an SMS with your location to the people you trust.',
};

let outDir: string;
const drawn = (route: PrerenderedRoute, language: Language) =>
  readFileSync(path.join(outDir, prerenderedFile(route, language)), 'utf8');

describe('the public pages drawn by the build (production build)', () => {
  beforeAll(async () => {
    outDir = await buildApp();
  }, 180_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it.each(PRERENDERED_ROUTES)('draws %s in each language, with its heading and the app around it', (route) => {
    for (const language of LANGUAGES) {
      const html = drawn(route, language);
      expect(html).toContain(`<html lang="${language}">`);
      expect(html).toContain(`<meta name="description" content="${DESCRIPTION[language]}"`);
      expect(html).toContain(
        `<div id="root" data-prerendered="${prerenderKey(language, new Date().getFullYear(), route)}"><div class="shell">`,
      );
      expect(html).toContain(`<h1>${HEADING[route][language]}</h1>`);
      // The top bar and the footer, in the same language.
      expect(html).toContain(`<nav aria-label="${NAVIGATION[language]}">`);
      expect(html).toContain('<footer class="footer">');
      // The Brotli copy the server sends is the same page.
      expect(
        brotliDecompressSync(readFileSync(path.join(outDir, `${prerenderedFile(route, language)}.br`))).toString(),
      ).toBe(html);
    }
  });

  it('paints with the HTML alone: the stylesheet is in the page, the scripts are fetched at low priority', () => {
    const index = readFileSync(path.join(outDir, 'index.html'), 'utf8');
    const scripts = index.match(/<(script type="module"|link rel="modulepreload")/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const route of PRERENDERED_ROUTES) {
      const html = drawn(route, 'pt');
      expect(html).not.toContain('rel="stylesheet"');
      expect(html).toMatch(/<style>:root\{/);
      expect(html.match(/<(script type="module"|link rel="modulepreload") fetchpriority="low"/g)).toHaveLength(
        scripts.length,
      );
    }
  });

  it('writes the prices and the notes of the pricing page as the app does', () => {
    expect(drawn('/pricing', 'pt')).toContain('<p class="price">3\u00a0€ / mês</p>');
    expect(drawn('/pricing', 'en')).toContain('<p class="price">€3 / month</p>');
    expect(drawn('/pricing', 'pt')).toContain('Para subscrever, entre primeiro na sua conta.');
  });

  it('leaves the drawn pages out of the service worker, which answers with index.html', () => {
    const sw = readFileSync(path.join(outDir, 'sw.js'), 'utf8');
    expect(sw).toContain('index.html');
    expect(sw).not.toContain('pages/');
    expect(existsSync(path.join(outDir, 'pages'))).toBe(true);
  });
});
