import type { Page } from '@playwright/test';
import { signedIn } from './app-helpers.js';
import { expect, test } from './fixtures.js';
import { seedUser } from './seed.js';
import { expectNoOverflow } from './tiles.js';

// Setup as an owner meets it on a small phone (320 px) and a common one (390 px), in both
// languages: no word or number breaks across lines in the contact rows or the device
// confirmation (the actions go under the contact when there is no room), nothing pushes the page
// sideways, the daily check-in's on/off is a checkbox, and a toast never covers the button it
// confirms.

const PASSWORD = 'correct horse 42';
const WIDTHS = [320, 390] as const;
const LANGUAGES = [
  { code: 'pt', language: 'Português', save: 'Guardar check-in diário', remove: /^Remover / },
  { code: 'en', language: 'English', save: 'Save daily check-in', remove: /^Remove / },
] as const;

/** The words (and numbers) of `selector`'s texts that the layout split over two lines or more. */
const brokenWords = (page: Page, selector: string) =>
  page.evaluate((within) => {
    const broken: string[] = [];
    for (const root of document.querySelectorAll(within)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const match of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
          if (tops.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  }, selector);

test('Setup’s contacts, devices and daily check-in at 320 and 390 px in both languages', async ({
  page,
  request,
  server,
}) => {
  test.setTimeout(120_000);
  const user = await seedUser(server.url, {
    contacts: [
      { name: 'Carla Mendes-Silva', phone_number: '+351923456789' },
      { name: 'Maria Silva', phone_number: '+351934567890' },
    ],
  });
  const login = await request.post('/api/users/auth/login/', { data: { username: user.username, password: PASSWORD } });
  const tokens = (await login.json()) as { access: string; refresh: string };
  await signedIn(page, tokens);
  await page.goto('/setup');
  await expect(page.locator('.contact-list li').first()).toBeVisible();
  for (const { code, language, save, remove } of LANGUAGES) {
    await page.getByRole('button', { name: language }).click();
    await expect(page.locator('html')).toHaveAttribute('lang', code);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 740 });
      const label = `${code} at ${width}px`;
      expect(await brokenWords(page, '.contact-list li'), label).toEqual([]);
      await expectNoOverflow(page, label);

      const device = page.locator('.device-list li').first();
      await device.getByRole('button', { name: remove }).click();
      const confirm = device.locator('fieldset.confirm');
      await expect(confirm).toBeVisible();
      expect(await brokenWords(page, '.device-list .confirm .button'), `${label}, confirmation`).toEqual([]);
      await expectNoOverflow(page, `${label}, confirmation`);
      await confirm.getByRole('button', { name: code === 'pt' ? 'Cancelar' : 'Cancel' }).click();

      const daily = page.locator('section.daily');
      const box = daily.getByRole('checkbox');
      expect((await box.boundingBox())?.height ?? 0, `${label}, the on/off`).toBeLessThanOrEqual(32);

      const button = daily.getByRole('button', { name: save });
      await button.scrollIntoViewIfNeeded();
      await button.click();
      const toast = page.locator('.toast').first();
      await expect(toast).toBeVisible();
      const [a, b] = [await button.boundingBox(), await toast.boundingBox()];
      if (!a || !b) throw new Error('no box');
      const overlaps = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
      expect(overlaps, `${label}: the toast covers "${save}"`).toBe(false);
      await page.locator('.toast-close').first().click();
      await page.screenshot({ path: `test-results/screenshots/setup-${code}-${width}.png`, fullPage: true });
    }
  }
});
