import { expect, test } from './emergency-fixtures.js';
import { outboxSms, seedUser } from './seed.js';

// The countdown comes with the HTML itself (common/emergency-shell.ts): from the server on a
// first visit, from the service worker afterwards. A slow network or a slow phone shows it
// before any script has run, and its Cancel works without script too.

test('the first visit shows the countdown and Cancel before any script, and that Cancel works', async ({
  page,
  server,
}) => {
  const user = await seedUser(server.url, { countdownSeconds: 10 });
  // The page's clock is the test's: the countdown's 10 seconds are run past by hand, not waited out.
  await page.clock.install();
  // Any alert POST from here on, by the page or its service worker, is the press that must not happen.
  const posted: string[] = [];
  page.context().on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/alerts/')) posted.push(request.url());
  });
  await page.route('**/assets/*.js', (route) => route.abort());
  await page.goto(`/public/${user.token}/`);
  await expect(page.getByTestId('countdown')).toHaveText('O alerta sai em 10 s');
  const cancel = page.getByRole('button', { name: 'Cancelar' });
  await expect(cancel).toBeVisible();
  // Styled by the page's own stylesheet, written into the HTML: a large dark target.
  expect((await cancel.boundingBox())?.height).toBeGreaterThanOrEqual(90);

  // Tapped before the scripts came: the page opens cancelled once they do, and sends nothing.
  await page.unroute('**/assets/*.js');
  await cancel.click();
  await expect(page.getByText('Alerta cancelado. Nada foi enviado.')).toBeVisible();
  expect(new URL(page.url()).search).toBe('');
  // Past the whole countdown, the page still waits for a press of its own.
  await page.clock.runFor(11_000);
  await expect(page.getByRole('button', { name: 'Enviar alerta agora' })).toBeVisible();
  expect(posted).toEqual([]);
  // Other tests alert the same default contact numbers meanwhile: only an SMS naming this owner counts.
  const phones = new Set(user.contacts.map((c) => c.phone_number));
  const ours = (await outboxSms(server.url)).filter((m) => phones.has(m.to) && m.body.includes(user.username));
  expect(ours).toEqual([]);
});

test('after one visit the service worker writes the countdown into the page it answers, no script needed', async ({
  page,
  context,
  server,
}) => {
  const user = await seedUser(server.url, { countdownSeconds: 5 });
  await page.goto(`/public/${user.token}/`);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
  await page.getByRole('button', { name: 'Cancelar' }).click();
  await expect(page.getByText('Alerta cancelado. Nada foi enviado.')).toBeVisible();

  // A new tab with scripts off: whatever shows came in the worker's answer.
  const next = await context.newPage();
  const cdp = await context.newCDPSession(next);
  await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
  const response = await next.goto(`/public/${user.token}/`);
  expect(response?.fromServiceWorker()).toBe(true);
  await expect(next.getByTestId('countdown')).toHaveText('O alerta sai em 5 s');
  await expect(next.getByRole('button', { name: 'Cancelar' })).toBeVisible();
  await expect(next.getByRole('heading', { name: /Alerta de u/ })).toBeVisible();
});
