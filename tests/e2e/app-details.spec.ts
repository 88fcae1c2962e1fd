import { premiumUser } from './app-helpers.js';
import { expect, test } from './fixtures.js';

test('an unknown address answers HTTP 404 with the app’s own not-found page, in both languages', async ({ page }) => {
  const response = await page.goto('/no-such-page');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Esta página não existe.' })).toBeVisible();
  await page.getByRole('button', { name: 'English' }).click();
  await expect(page.getByRole('heading', { name: 'This page does not exist.' })).toBeVisible();
  // The app's own routes still answer 200.
  for (const path of ['/pricing', '/reset-password/', '/reset-password-confirm/MQ/abc']) {
    expect((await page.goto(path))?.status(), path).toBe(200);
  }
});

test('the password checklist ticks nothing before anything is typed', async ({ page }) => {
  await page.goto('/register');
  const checklist = page.getByRole('list', { name: 'Requisitos da palavra-passe' });
  await expect(checklist.getByText('✓')).toHaveCount(0);
  await expect(checklist.getByRole('listitem')).toHaveCount(4);
  await page.getByLabel('Palavra-passe', { exact: true }).fill('segura123');
  await expect(checklist.getByText('✓')).toHaveCount(4);
  await page.getByLabel('Palavra-passe', { exact: true }).fill('');
  await expect(checklist.getByText('✓')).toHaveCount(0);
});

test('a 7-digit Portuguese number is refused as too short, in both languages', async ({ page, request }) => {
  await premiumUser(page, request);
  await page.goto('/setup');
  await page.getByLabel('Nome', { exact: true }).fill('Maria Silva');
  await page.getByLabel('Telemóvel').fill('9123456');
  await page.getByRole('button', { name: 'Adicionar contacto' }).click();
  await expect(page.getByText('O número deve ter pelo menos 9 algarismos.')).toBeVisible();
  await expect(page.getByText(/formato internacional/)).toHaveCount(0);
  await page.getByRole('button', { name: 'English' }).click();
  await page.getByRole('button', { name: 'Add contact' }).click();
  await expect(page.getByText('The number must have at least 9 digits.')).toBeVisible();
});
