import { mailedLink, premiumUser } from './app-helpers.js';
import { expect, test } from './fixtures.js';

test('a forgotten password is reset from the e-mailed link, then the new one logs in', async ({ page, request }) => {
  const { username, email } = await premiumUser(page, request);
  await page.addInitScript(() => localStorage.clear());
  await page.goto('/login');
  await page.getByRole('link', { name: 'Esqueceu-se da palavra-passe?' }).click();
  await expect(page).toHaveURL(/\/reset-password\/$/);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Enviar ligação' }).click();
  await expect(page.getByText(/Se houver uma conta com este e-mail/)).toBeVisible();

  const link = await mailedLink(request, email, '/reset-password-confirm/');
  await page.goto(link);
  await page.getByLabel('Nova palavra-passe', { exact: true }).fill('Outra-2027');
  await page.getByLabel('Repetir nova palavra-passe').fill('Outra-2027');
  await page.getByRole('button', { name: 'Guardar palavra-passe' }).click();
  await expect(page.getByText('Palavra-passe alterada. Vamos levá-lo à entrada.')).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);

  // The link works once only.
  await page.goto(link);
  await page.getByLabel('Nova palavra-passe', { exact: true }).fill('Terceira-2028');
  await page.getByLabel('Repetir nova palavra-passe').fill('Terceira-2028');
  await page.getByRole('button', { name: 'Guardar palavra-passe' }).click();
  await expect(page.getByRole('alert')).toHaveText('A ligação é inválida ou expirou. Peça uma nova.');

  await page.goto('/login');
  await page.getByLabel('Nome de utilizador ou e-mail').fill(email.toUpperCase());
  await page.getByLabel('Palavra-passe').fill('Outra-2027');
  await page.getByRole('button', { name: 'Entrar' }).click();
  await expect(page.getByRole('heading', { name: `Olá, ${username}` })).toBeVisible();
});

test('a bad verification link lands on resend with a message; resending goes to login', async ({ page }) => {
  await page.goto('/api/users/verify-email/not-a-real-key/');
  await expect(page).toHaveURL(/\/resend-verification\?error=invalid$/);
  await expect(page.getByRole('alert')).toContainText('A ligação de confirmação é inválida ou expirou.');
  await page.getByLabel('E-mail').fill('nobody@example.com');
  await page.getByRole('button', { name: 'Reenviar' }).click();
  await expect(page.getByText(/Se houver uma conta por confirmar com este e-mail/).first()).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
});

test('an expired access token is refreshed transparently; a dead session goes to /login', async ({ page, request }) => {
  await premiumUser(page, request);
  await page.goto('/setup');
  await expect(page.getByRole('heading', { name: 'Botões de emergência' })).toBeVisible();
  // A broken access token: the app refreshes with the refresh token and carries on.
  await page.evaluate(() => localStorage.setItem('alerta.access', 'broken'));
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Botões de emergência' })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('alerta.access'))).not.toBe('broken');
  // Both tokens broken: the session ends on the login page.
  await page.evaluate(() => {
    localStorage.setItem('alerta.access', 'broken');
    localStorage.setItem('alerta.refresh', 'broken');
  });
  await page.reload();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem('alerta.refresh'))).toBeNull();
});
