import type { Page } from '@playwright/test';
import { premiumUser } from './app-helpers.js';
import { expect, test } from './fixtures.js';

/**
 * Opens `path` as a first visit: notes the page's heading as the HTML drew it (before any script
 * ran) and every error and issue the page reports, and waits for the app to have started (it registers the
 * service worker once the page is the app's).
 */
async function firstVisit(page: Page, path: string) {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  // The issues Chromium reports beside the console (DevTools' Issues panel), a CSP refusal among them.
  const devtools = await page.context().newCDPSession(page);
  devtools.on('Audits.issueAdded', ({ issue }) => errors.push(`${issue.code}: ${JSON.stringify(issue.details)}`));
  await devtools.send('Audits.enable');
  await page.addInitScript(() => {
    document.addEventListener('readystatechange', () => {
      if (document.readyState === 'interactive') {
        (window as { drawnHeading?: Element | null }).drawnHeading = document.querySelector('#root h1');
      }
    });
  });
  await page.goto(path);
  await page.waitForFunction(async () => Boolean(await navigator.serviceWorker.getRegistration()));
  const drawn = () =>
    page.evaluate(() => {
      const heading = (window as { drawnHeading?: Element | null }).drawnHeading;
      return { text: heading?.textContent ?? null, kept: heading?.isConnected ?? false };
    });
  return { errors, drawn };
}

test('a first visit to /pricing shows the page before any script has run', async ({ page }) => {
  await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
  await page.goto('/pricing');
  await expect(page.getByRole('heading', { name: 'Preços', level: 1 })).toBeVisible();
  await expect(page.getByText('3\u00a0€ / mês')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Escolher Premium' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Entrar' }).first()).toBeVisible();
});

test('before the app takes it over, the drawn login form takes no input and sends nothing', async ({ page }) => {
  await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
  await page.goto('/login');
  const form = page.locator('form');
  await expect(form).toHaveAttribute('inert', '');
  // A submitted form would leave as a navigation (a GET carrying the fields in its address).
  const sent: string[] = [];
  page.on('request', (request) => {
    if (request.isNavigationRequest()) sent.push(request.url());
  });
  // A click on the button goes through it, as through all of the inert form: nothing is sent.
  await page.getByRole('button', { name: 'Entrar', includeHidden: true }).last().click({ force: true });
  // A submission starts its navigation in the click's own task: one later task of the page is past it.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve)));
  expect(sent).toEqual([]);
  expect(new URL(page.url()).search).toBe('');
});

test('the drawn login form takes input once the app has taken it over', async ({ page }) => {
  const { errors } = await firstVisit(page, '/login');
  await expect(page.locator('form')).not.toHaveAttribute('inert');
  await page.getByLabel('Nome de utilizador ou e-mail').fill('someone');
  await expect(page.getByLabel('Nome de utilizador ou e-mail')).toHaveValue('someone');
  expect(errors).toEqual([]);
});

test('a drawn copy opened at its file address is drawn anew as the page of that address', async ({ page }) => {
  const { errors, drawn } = await firstVisit(page, '/pages/pricing.pt.html');
  expect(await drawn()).toEqual({ text: 'Preços', kept: false });
  await expect(page.getByRole('heading', { name: 'Esta página não existe.' })).toBeVisible();
  expect(errors).toEqual([]);
});

test('the app takes over the drawn page as it stands, and it then works as ever', async ({ page }) => {
  const { errors, drawn } = await firstVisit(page, '/pricing');
  expect(await drawn()).toEqual({ text: 'Preços', kept: true });
  await page.getByRole('button', { name: 'English' }).click();
  await expect(page.getByRole('heading', { name: 'Pricing', level: 1 })).toBeVisible();
  // The heading drawn by the server is the one the app changed.
  expect(await drawn()).toEqual({ text: 'Pricing', kept: true });
  await page.getByRole('link', { name: 'Log in' }).last().click();
  await expect(page.getByRole('heading', { name: 'Log in', level: 1 })).toBeVisible();
  expect(errors).toEqual([]);
});

test('a visitor who chose English gets the page drawn in English, taken over as it stands', async ({
  page,
  server,
}) => {
  await page.addInitScript(() => localStorage.setItem('lang', 'en'));
  await page.context().addCookies([{ name: 'lang', value: 'en', url: server.url }]);
  const { errors, drawn } = await firstVisit(page, '/login');
  expect(await drawn()).toEqual({ text: 'Log in', kept: true });
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  expect(errors).toEqual([]);
});

test('a page drawn in another language than the chosen one is drawn anew', async ({ page }) => {
  // English chosen, but no cookie says so: the Portuguese copy arrives and the app draws the English page.
  await page.addInitScript(() => localStorage.setItem('lang', 'en'));
  const { errors, drawn } = await firstVisit(page, '/pricing');
  expect(await drawn()).toEqual({ text: 'Preços', kept: false });
  await expect(page.getByRole('heading', { name: 'Pricing', level: 1 })).toBeVisible();
  expect(errors).toEqual([]);
});

test('a logged-in visitor gets the page drawn anew for them', async ({ page, request }) => {
  await premiumUser(page, request);
  const { errors, drawn } = await firstVisit(page, '/pricing');
  expect(await drawn()).toEqual({ text: 'Preços', kept: false });
  await expect(page.getByRole('button', { name: 'O seu plano atual' })).toBeVisible();
  await expect(page.getByText('Para subscrever, entre primeiro na sua conta.')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('a page drawn in an earlier year is drawn anew with this year in its footer', async ({ page }) => {
  const nextYear = new Date().getFullYear() + 1;
  await page.clock.setFixedTime(new Date(`${nextYear}-01-02T10:00:00Z`));
  const { errors, drawn } = await firstVisit(page, '/login');
  expect(await drawn()).toEqual({ text: 'Entrar', kept: false });
  await expect(page.getByText(`© ${nextYear} Alerta`)).toBeVisible();
  expect(errors).toEqual([]);
});
