import type { Page } from '@playwright/test';
import { premiumUser } from './app-helpers.js';
import { expect, test } from './fixtures.js';

const NEW_PASSWORD = 'Mudada-2027';

/** Sets the page to `width` px wide and waits until it has laid out there. */
async function narrow(page: Page, width: number) {
  await page.setViewportSize({ width, height: 800 });
  await page.waitForFunction((w) => window.innerWidth === w, width);
}

/** Nothing in the page is wider than the screen. */
async function expectNoSideways(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test('Setup changes the password at 320 and 390 px, in both languages: other logins end, this one stays', async ({
  page,
  request,
}) => {
  const { username, password } = await premiumUser(page, request);
  // Another login of the same account (another phone), which the change must end.
  const other = (await (await request.post('/api/users/auth/login/', { data: { username, password } })).json()) as {
    refresh: string;
  };

  await narrow(page, 320);
  await page.goto('/setup');
  const section = page.getByRole('region', { name: 'Palavra-passe' });
  await section.scrollIntoViewIfNeeded();
  await expect(section.getByText('As outras sessões e os outros dispositivos terminam logo')).toBeVisible();
  const submit = section.getByRole('button', { name: 'Mudar a palavra-passe' });

  // A wrong current password, said beside its field.
  await section.getByLabel('Palavra-passe atual').fill('Errada-2026');
  await section.getByLabel('Nova palavra-passe', { exact: true }).fill('curta');
  await expect(section.getByRole('listitem').filter({ hasText: 'Pelo menos 8 caracteres' })).toHaveClass('todo');
  await expect(submit).toBeDisabled();
  await section.getByLabel('Nova palavra-passe', { exact: true }).fill(NEW_PASSWORD);
  await section.getByLabel('Repetir a nova palavra-passe').fill(NEW_PASSWORD);
  await submit.click();
  await expect(section.getByText('A palavra-passe atual não está correta.')).toBeVisible();
  await expectNoSideways(page);
  await section.screenshot({ path: 'test-results/screenshots/setup-password-pt-320.png' });

  // In English at 390 px: the same section, the same error in English.
  await page.getByRole('button', { name: 'English' }).click();
  await narrow(page, 390);
  const english = page.getByRole('region', { name: 'Password', exact: true });
  await english.scrollIntoViewIfNeeded();
  await english.getByRole('button', { name: 'Change password' }).click();
  await expect(english.getByText('Your current password is not correct.')).toBeVisible();
  await expectNoSideways(page);
  await english.screenshot({ path: 'test-results/screenshots/setup-password-en-390.png' });

  // The right one: the form empties and says the other logins ended.
  await english.getByLabel('Current password').fill(password);
  await english.getByRole('button', { name: 'Change password' }).click();
  await expect(english.getByRole('status')).toContainText('Password changed. Your other logins and devices');
  await expect(english.getByLabel('Current password')).toHaveValue('');
  await english.screenshot({ path: 'test-results/screenshots/setup-password-en-390-done.png' });

  // The other login's refresh token is refused; this page stays signed in after a reload.
  expect((await request.post('/api/users/auth/refresh/', { data: { refresh: other.refresh } })).status()).toBe(401);
  await page.reload();
  await expect(page.getByRole('region', { name: 'Password', exact: true })).toBeVisible();
  const login = await request.post('/api/users/auth/login/', { data: { username, password: NEW_PASSWORD } });
  expect(login.status()).toBe(200);

  // Back in Portuguese at 390 and in English at 320: both fit.
  await page.getByRole('button', { name: 'Português' }).click();
  const again = page.getByRole('region', { name: 'Palavra-passe' });
  await again.scrollIntoViewIfNeeded();
  await expectNoSideways(page);
  await again.screenshot({ path: 'test-results/screenshots/setup-password-pt-390.png' });
  await page.getByRole('button', { name: 'English' }).click();
  await narrow(page, 320);
  await expectNoSideways(page);
  await page
    .getByRole('region', { name: 'Password', exact: true })
    .screenshot({ path: 'test-results/screenshots/setup-password-en-320.png' });
});
