import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { APP_ROUTES } from '../../common/app-routes.js';
import { premiumUser, screenshots } from './app-helpers.js';
import { expect, test } from './fixtures.js';

/** Every page of the app (common/app-routes.ts), as a person would open it: parameters filled in. */
const PUBLIC_ROUTES = APP_ROUTES.map((route) =>
  route === '/resend-verification' ? `${route}?error=invalid` : route.replace(/:[a-z]+/g, (name) => name.slice(1)),
);

/** Serious and critical axe violations on the current page, summarised. */
async function seriousViolations(page: Page) {
  // Colours are judged once the page transition has finished fading in.
  await page.waitForFunction(() => document.getAnimations().every((animation) => animation.playState !== 'running'));
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

test.describe('accessibility', () => {
  for (const language of ['pt', 'en'] as const) {
    test(`no serious or critical axe violation on any route, logged out (${language})`, async ({ page }) => {
      // One axe scan per route of the app, each after its page transition: several times one page's time.
      test.slow();
      await page.addInitScript((lang) => localStorage.setItem('lang', lang), language);
      for (const route of PUBLIC_ROUTES) {
        await page.goto(route);
        await expect(page.locator('main h1, main [role="status"]').first()).toBeVisible();
        await expect(page.locator('html')).toHaveAttribute('lang', language);
        expect(await seriousViolations(page), route).toEqual([]);
      }
    });
  }

  test('no serious or critical axe violation logged in with a subscription, at 320 px too', async ({
    page,
    request,
  }) => {
    await premiumUser(page, request);
    await page.goto('/');
    await expect(page.getByRole('heading', { name: /^Olá, / })).toBeVisible();
    await screenshots(page, 'home-logged-in');
    for (const route of ['/', '/setup', '/pricing', '/trial-info']) {
      await page.goto(route);
      await expect(page.locator('main h1').first()).toBeVisible();
      expect(await seriousViolations(page), route).toEqual([]);
    }
    // Nothing runs off the side of a 320 px screen.
    await page.setViewportSize({ width: 320, height: 640 });
    for (const route of ['/', '/setup', '/pricing', '/register', '/privacy']) {
      await page.goto(route);
      await expect(page.locator('main h1').first()).toBeVisible();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${route} at 320 px`).toBeLessThanOrEqual(0);
    }
    await page.goto('/setup');
    await expect(page.getByRole('heading', { name: 'Botões de emergência' })).toBeVisible();
    expect(await seriousViolations(page), '/setup at 320 px').toEqual([]);
  });
});

test('home and register screenshots, logged out, at both sizes', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('link', { name: 'Criar conta' })).toBeVisible();
  await screenshots(page, 'home-logged-out');
  await page.goto('/register');
  await expect(page.getByRole('heading', { name: 'Criar conta' })).toBeVisible();
  await screenshots(page, 'register');
});

test('the page opened shows at once; pages moved to animate, except when the system asks for reduced motion', async ({
  page,
}) => {
  const animation = () => page.locator('main > div').evaluate((element) => getComputedStyle(element).animationName);
  const navigation = page.getByRole('navigation');
  await page.goto('/pricing');
  await expect(page.getByRole('heading', { name: 'Preços' })).toBeVisible();
  expect(await animation()).toBe('none');
  await navigation.getByRole('link', { name: 'Privacidade' }).click();
  await expect(page.getByRole('heading', { name: 'Política de privacidade' })).toBeVisible();
  expect(await animation()).toBe('page-in');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await navigation.getByRole('link', { name: 'Termos' }).click();
  await expect(page.getByRole('heading', { name: 'Termos de utilização' })).toBeVisible();
  expect(await animation()).toBe('none');
});
