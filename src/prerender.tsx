import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import type { Language } from '../common/constants';
import { App } from './App';
import i18n from './i18n';

/**
 * The app's page at `path` in `language` as a visitor who is not logged in first sees it, as HTML
 * for the root, and the page's description in that language. Run by the build
 * (scripts/prerender-pages.ts), not in the browser.
 */
export async function render(path: string, language: Language): Promise<{ html: string; description: string }> {
  await i18n.changeLanguage(language);
  const html = renderToString(
    <StaticRouter location={path}>
      <App />
    </StaticRouter>,
  );
  // The page's description for search results, in its language (index.html's is Portuguese).
  return { html, description: i18n.t('app.tagline') };
}
