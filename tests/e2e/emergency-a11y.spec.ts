import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, test } from './emergency-fixtures.js';
import { seedUser } from './seed.js';

/** Serious and critical axe violations on the current page. */
async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('the emergency and test pages have no serious accessibility violation, and Cancel is a large target', async ({
  page,
  context,
  server,
}) => {
  await context.grantPermissions(['geolocation']);
  await context.setGeolocation({ latitude: 40.2033, longitude: -8.4103, accuracy: 20 });
  const user = await seedUser(server.url, { countdownSeconds: 10 });

  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`/public/${user.token}/`);
  const cancel = page.getByRole('button', { name: 'Cancelar' });
  const box = await cancel.boundingBox();
  expect(box?.height).toBeGreaterThanOrEqual(48);
  expect(await seriousViolations(page)).toEqual([]);
  await cancel.click();
  await expect(page.getByText('Alerta cancelado. Nada foi enviado.')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await page.goto(`/test/${user.token}/`);
  await expect(page.locator('[data-check="install"]')).toBeVisible({ timeout: 15_000 });
  expect(await seriousViolations(page)).toEqual([]);
});
