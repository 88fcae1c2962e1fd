import { expect, test } from './emergency-fixtures.js';
import { outboxSms, seedUser } from './seed.js';

test('the test page sends one marked test SMS to the contact the person chooses, with ordinary names, in both languages', async ({
  page,
  context,
  server,
}) => {
  await context.grantPermissions(['geolocation']);
  await context.setGeolocation({ latitude: 38.72, longitude: -9.14, accuracy: 10 });
  const user = await seedUser(server.url, {
    contacts: [
      { name: 'Maria Silva', phone_number: '+351911000001' },
      { name: 'João Costa', phone_number: '+351911000002' },
    ],
  });
  const mine = async () => (await outboxSms(server.url)).filter((m) => m.body.includes(user.username));

  await page.goto(`/test/${user.token}/`);
  const chooser = page.getByLabel('Quem recebe o SMS de teste');
  await expect(chooser).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText('Só esse contacto recebe um SMS, marcado TESTE. No máximo 5 por hora.')).toBeVisible();
  // A link alone shows the contacts' numbers masked: the name and the last digits tell them apart.
  await chooser.selectOption({ label: 'João Costa (•••••••002)' });
  await page.getByRole('button', { name: 'Enviar SMS de teste' }).click();
  await expect(page.getByText('SMS de teste enviado (marcado TESTE).')).toBeVisible({ timeout: 15_000 });
  await expect.poll(async () => (await mine()).map((m) => m.to)).toEqual(['+351911000002']);
  expect((await mine())[0]?.body).toMatch(/^TESTE Alerta/);

  // The same page in English for an owner who uses English.
  const english = await seedUser(server.url, {
    language: 'en',
    contacts: [{ name: 'Ann Smith', phone_number: '+351911000003' }],
  });
  await page.goto(`/test/${english.token}/`);
  await expect(page.getByLabel('Who gets the test SMS')).toHaveValue(/.+/, { timeout: 20_000 });
  await expect(page.getByText('Only that contact gets an SMS, marked TEST. At most 5 an hour.')).toBeVisible();
});
