import { mailedLink, screenshots, uniqueName } from './app-helpers.js';
import { expect, test } from './fixtures.js';

test('a new user registers, verifies, subscribes, manages a contact, switches language and deletes the account', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const username = uniqueName('Ana');
  const email = `${username.toLowerCase()}@example.com`;
  const password = 'Segura-2026';

  // Register: the submit waits for the terms and a passing checklist.
  await page.goto('/register');
  await screenshots(page, 'register');
  await page.getByLabel('Nome de utilizador').fill(username);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Palavra-passe', { exact: true }).fill('qwerty');
  const submit = page.getByRole('button', { name: 'Criar conta' });
  await expect(submit).toBeDisabled();
  await page.getByLabel('Palavra-passe', { exact: true }).fill(password);
  await page.getByLabel('Repetir palavra-passe').fill(password);
  await expect(submit).toBeDisabled();
  await page.getByRole('checkbox').check();
  await submit.click();
  await expect(page.getByText(/Conta criada/)).toBeVisible();
  await expect(page).toHaveURL(/\/verify-email$/);

  // Logging in before verifying says so.
  await page.goto('/login');
  await page.getByLabel('Nome de utilizador ou e-mail').fill(username);
  await page.getByLabel('Palavra-passe').fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await expect(page.getByRole('alert')).toHaveText('E-mail não confirmado. Confirme o seu e-mail antes de entrar.');

  // The verification link from the outbox confirms the address.
  await page.goto(await mailedLink(request, email, '/verify-email/'));
  await expect(page).toHaveURL(/\/email-confirmed$/);
  await expect(page.getByRole('heading', { name: 'E-mail confirmado' })).toBeVisible();

  await page.getByRole('main').getByRole('link', { name: 'Entrar' }).click();
  await page.getByLabel('Nome de utilizador ou e-mail').fill(username.toUpperCase());
  await page.getByLabel('Palavra-passe').fill(password);
  await page.getByRole('button', { name: 'Entrar' }).click();
  await expect(page.getByRole('heading', { name: `Olá, ${username.toLowerCase()}` })).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('link', { name: 'Ativar o teste gratuito' })).toBeVisible();

  // Pricing → simulated checkout → back home with the subscription active.
  await page.getByRole('navigation').getByRole('link', { name: 'Preços' }).click();
  await page.getByRole('button', { name: 'Escolher Premium' }).click();
  await expect(page).toHaveURL(/\/dev\/checkout\//);
  await page.getByRole('button', { name: /Pay/ }).click();
  await expect(page.getByText('Pagamento concluído. A sua subscrição está ativa.')).toBeVisible();
  await expect(page.getByText(/Teste gratuito ativo: restam 3 dias\./)).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await screenshots(page, 'home');

  // Setup: a short number and a duplicate are refused with the spec's messages.
  await page.getByRole('link', { name: 'Gerir contactos' }).click();
  await expect(page.getByRole('heading', { name: 'Configurar contactos' })).toBeVisible();
  await expect(page.getByText('Como começar (6 passos)')).toBeVisible();
  const phone = page.getByLabel('Telemóvel');
  await page.getByLabel('Nome', { exact: true }).fill('Maria Silva');
  await phone.fill('91234');
  await page.getByRole('button', { name: 'Adicionar contacto' }).click();
  await expect(page.getByRole('alert')).toHaveText('Corrija os erros abaixo.');
  await expect(page.getByText('O número deve ter pelo menos 9 algarismos.')).toBeVisible();
  await phone.fill('912 345 678');
  await page.getByLabel('Relação (opcional)').fill('Irmã');
  await page.getByRole('button', { name: 'Adicionar contacto' }).click();
  await expect(page.getByText('+351912345678')).toBeVisible();
  await expect(page.getByLabel('Nome', { exact: true })).toHaveValue('');
  await page.getByLabel('Nome', { exact: true }).fill('Outra Maria');
  await page.getByLabel('Telemóvel').fill('912345678');
  await page.getByRole('button', { name: 'Adicionar contacto' }).click();
  await expect(page.getByText('Este número já está nos seus contactos.')).toBeVisible();

  // The Emergency Buttons, with both links on this origin.
  await expect(page.getByRole('heading', { name: 'Botões de emergência' })).toBeVisible();
  await expect(page.locator('code.url').first()).toContainText('/test/');
  await expect(page.locator('code.url').nth(1)).toContainText('/public/');
  await screenshots(page, 'setup');

  // The contact survives a reload (it is on the server), then is removed.
  await page.reload();
  await expect(page.getByText('+351912345678')).toBeVisible();
  await page.getByRole('button', { name: 'Remover Maria Silva' }).click();
  await expect(page.getByText('Ainda não tem contactos.')).toBeVisible();
  await page.reload();
  await expect(page.getByText('Ainda não tem contactos.')).toBeVisible();

  // English, kept across a reload, and back to Portuguese.
  await page.getByRole('button', { name: 'English' }).click();
  await expect(page.getByRole('heading', { name: 'Contacts setup' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Contacts setup' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Emergency Buttons' })).toBeVisible();
  await page.getByRole('button', { name: 'Português' }).click();
  await expect(page.getByRole('heading', { name: 'Configurar contactos' })).toBeVisible();
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('lang', 'pt');

  // The alert countdown is saved on the account.
  await page.getByLabel('Contagem antes do envio').selectOption('10');
  await expect(page.getByText('Contagem guardada.')).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Contagem antes do envio')).toHaveValue('10');

  // New links after confirmation; the old real link stops working.
  const oldLink = (await page.locator('code.url').nth(1).textContent())!;
  const oldToken = oldLink.split('/').at(-2)!;
  await page.getByRole('button', { name: 'Gerar novas ligações' }).click();
  await page.getByRole('button', { name: 'Sim, gerar novas ligações' }).click();
  await expect(page.getByText('Novas ligações geradas. Atualize o atalho no ecrã principal.')).toBeVisible();
  await expect(page.locator('code.url').nth(1)).not.toHaveText(oldLink);
  expect((await request.get(`/api/emergency/public/${oldToken}/`)).status()).toBe(404);

  // Manage subscription opens the provider's portal.
  await page.getByRole('button', { name: 'Gerir subscrição' }).click();
  await expect(page.getByRole('heading', { name: /Your subscription/ })).toBeVisible();
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'Configurar contactos' })).toBeVisible();

  // Delete the account: confirmation, logout, then /register.
  await page.getByRole('button', { name: 'Apagar a minha conta' }).click();
  await page.getByRole('button', { name: 'Sim, apagar a conta' }).click();
  await expect(page).toHaveURL(/\/register$/);
  expect(await page.evaluate(() => localStorage.getItem('alerta.access'))).toBeNull();
  const login = await request.post('/api/users/auth/login/', { data: { username, password } });
  expect(login.status()).toBe(401);
});
