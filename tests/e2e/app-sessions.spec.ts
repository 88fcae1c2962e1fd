import { premiumUser } from './app-helpers.js';
import { expect, test } from './fixtures.js';

/** Stands for an access token that has expired: the server answers it with 401. */
const EXPIRED_ACCESS = 'expired.access.token';

test('two tabs whose access token expired refresh one after the other and both stay logged in', async ({
  context,
  page,
  request,
}) => {
  const { username, tokens } = await premiumUser(page, request);
  // Both tabs start with an expired access token and the same refresh token.
  await context.addInitScript(
    ([expired, refresh]) => {
      if (!localStorage.getItem('seeded')) {
        localStorage.setItem('seeded', '1');
        localStorage.setItem('alerta.access', expired!);
        localStorage.setItem('alerta.refresh', refresh!);
      }
    },
    [EXPIRED_ACCESS, tokens.refresh],
  );
  const other = await context.newPage();
  // The first tab's refresh is slow on the network: it goes out only once the second tab is
  // waiting for the refresh lock (Web Locks) the first one holds, so both refresh at once.
  let refreshes = 0;
  await page.route('**/api/users/auth/refresh/', async (route) => {
    refreshes += 1;
    await expect
      .poll(
        () =>
          page.evaluate(async () =>
            Boolean((await navigator.locks.query()).pending?.some((lock) => lock.name === 'alerta-refresh')),
          ),
        { timeout: 15_000 },
      )
      .toBe(true);
    await route.continue();
  });
  await Promise.all([page.goto('/'), other.goto('/')]);
  const welcome = `Olá, ${username}`;
  await expect(page.getByRole('heading', { name: welcome })).toBeVisible();
  await expect(other.getByRole('heading', { name: welcome })).toBeVisible();
  expect(refreshes).toBeLessThanOrEqual(1);

  // Neither tab was logged out: the session still works in both, after a reload too.
  for (const tab of [page, other]) {
    await tab.reload();
    await expect(tab.getByRole('heading', { name: welcome })).toBeVisible();
    await tab.getByRole('link', { name: 'Gerir contactos' }).click();
    await expect(tab.getByRole('heading', { name: 'Configurar contactos' })).toBeVisible();
  }
  const refresh = await page.evaluate(() => localStorage.getItem('alerta.refresh'));
  expect((await request.post('/api/users/auth/refresh/', { data: { refresh } })).status()).toBe(200);
});

test('a start without the server keeps the session and shows the last known home with a retry', async ({
  page,
  request,
}) => {
  const { username } = await premiumUser(page, request);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: `Olá, ${username}` })).toBeVisible();

  // The server fails: the page still shows who is logged in, says so, and keeps both tokens.
  await page.route('**/api/users/me/', (route) => route.fulfill({ status: 503, body: '{}' }));
  await page.reload();
  await expect(page.getByRole('heading', { name: `Olá, ${username}` })).toBeVisible();
  await expect(page.getByRole('alert')).toContainText(
    'Não foi possível contactar o servidor. Mostramos os dados da sua última visita.',
  );
  await expect(page.getByText('Teste gratuito ativo: restam 3 dias.')).toBeVisible();

  // No network at all, in English.
  await page.unroute('**/api/users/me/');
  await page.route('**/api/users/me/', (route) => route.abort('internetdisconnected'));
  await page.getByRole('button', { name: 'English' }).click();
  await page.reload();
  await expect(page.getByRole('alert')).toContainText(
    'Could not reach the server. Showing your details from your last visit.',
  );
  expect(await page.evaluate(() => localStorage.getItem('alerta.refresh'))).not.toBeNull();

  // Back: Try again loads the account.
  await page.unroute('**/api/users/me/');
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByText('Free trial active: 3 days left.')).toBeVisible();
});

test('logging out ends the session on the server and in every open tab', async ({ context, page, request }) => {
  const { username } = await premiumUser(page, request);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: `Olá, ${username}` })).toBeVisible();
  const other = await context.newPage();
  await other.goto('/setup');
  await expect(other.getByRole('heading', { name: 'Configurar contactos' })).toBeVisible();
  const refresh = await page.evaluate(() => localStorage.getItem('alerta.refresh'));

  await page.getByRole('button', { name: 'Sair' }).click();
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem('alerta.refresh'))).toBeNull();
  // The refresh token no longer works anywhere.
  const reused = await request.post('/api/users/auth/refresh/', { data: { refresh } });
  expect(reused.status()).toBe(401);
  // The other tab is logged out too.
  await expect(other.getByText('Entre na sua conta para gerir os seus contactos de emergência.')).toBeVisible();
});
