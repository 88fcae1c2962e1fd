import { LANG_STORAGE_KEY } from '../../common/constants.js';
import { expect, test } from './emergency-fixtures.js';

// A link that does not work sends nothing: the page says so and what to do, and nothing about
// an alert going without location (the location is refused here, as it is on many phones).

const DEAD_LINK = `/public/${'NoSuchLink'.padEnd(32, '0')}/`;

test('a link that does not work says only that, and where the new one is, in pt and en', async ({ page }) => {
  await page.goto(DEAD_LINK);
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByTestId('location')).toHaveCount(0);
  await expect(page.locator('main')).not.toContainText('sem ela');
  await expect(page.getByRole('heading', { name: 'Contactos' })).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveText(
    'Esta ligação de emergência não é válida (foi renovada ou não existe): nenhum alerta pode ser enviado por ela. Entre no Alerta e guarde a nova ligação «Emergência real», em Configurar.',
  );

  await page.evaluate((key) => localStorage.setItem(key, 'en'), LANG_STORAGE_KEY);
  await page.reload();
  await expect(page.getByRole('alert')).toHaveText(
    'This emergency link is not valid (it was renewed or does not exist): no alert can be sent with it. Log in to Alerta and save the new “Real Emergency” link from Setup.',
  );
  await expect(page.getByTestId('location')).toHaveCount(0);
  await expect(page.locator('main')).not.toContainText('without it');
});
