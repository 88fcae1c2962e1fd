import { mapsUrl } from '../../common/sms-text.js';
import { expect, test } from './emergency-fixtures.js';
import { outboxSms, seedUser } from './seed.js';

const PORTO = { latitude: 41.14961, longitude: -8.61099, accuracy: 8 };

test('the test page checks everything, sends nothing, and sends one marked test SMS on request', async ({
  page,
  context,
  server,
}) => {
  await context.grantPermissions(['geolocation']);
  await context.setGeolocation(PORTO);
  const user = await seedUser(server.url, {
    contacts: [
      { name: 'TEST Rita', phone_number: '+351911111111' },
      { name: 'Pedro Alves', phone_number: '+351922222222' },
    ],
  });
  const mine = async () => (await outboxSms(server.url)).filter((m) => m.body.includes(user.username));

  await page.goto(`/test/${user.token}/`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
  await page.getByRole('button', { name: 'Verificar de novo' }).click();
  const checks = page.getByRole('list', { name: 'Verificação (nada é enviado)' });
  for (const id of ['network', 'token', 'subscription', 'contacts', 'location', 'offline']) {
    await expect(checks.locator(`[data-check="${id}"]`)).toHaveAttribute('data-result', 'pass', { timeout: 15_000 });
  }
  await expect(checks.locator('[data-check="location"]')).toContainText('precisão 8 m');
  await expect(checks.locator('[data-check="contacts"]')).toContainText('2 contactos');
  await expect(page.getByTestId('message')).toContainText(mapsUrl(PORTO.latitude, PORTO.longitude));
  await expect(page.getByTestId('message')).toContainText('EMERG');
  await expect(page.getByTestId('message')).toContainText(`Acompanhe: ${server.url}/a/…`);
  expect(await mine()).toEqual([]);

  await page.getByRole('button', { name: 'Enviar SMS de teste' }).click();
  await expect(page.getByText('SMS de teste enviado (marcado TESTE).')).toBeVisible();
  await expect(page.locator('[data-status="delivered"]')).toHaveCount(1, { timeout: 15_000 });
  const sms = await mine();
  expect(sms.map((m) => m.to)).toEqual(['+351911111111']);
  expect(sms[0]?.body).toMatch(/^TESTE/);
});

test('the test page reports a dead link and refused location plainly, in English when the owner uses it', async ({
  page,
  server,
}) => {
  await page.goto('/test/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/');
  const checks = page.locator('.checks');
  await expect(checks.locator('[data-check="token"]')).toHaveAttribute('data-result', 'fail', { timeout: 15_000 });
  await expect(checks.locator('[data-check="token"]')).toContainText('Esta ligação de emergência não é válida');

  const user = await seedUser(server.url, { language: 'en' });
  await page.goto(`/test/${user.token}/`);
  await expect(page.getByRole('heading', { name: /^Emergency test/ })).toBeVisible();
  await expect(checks.locator('[data-check="location"]')).toHaveAttribute('data-result', 'fail', { timeout: 15_000 });
  await expect(checks.locator('[data-check="location"]')).toContainText('Location not allowed');
});
