import { signedIn } from './app-helpers.js';
import { expect, test } from './fixtures.js';
import { seedUser } from './seed.js';
import { outboxJsonPath } from './server.js';

// The daily check-in as the owner meets it: set in Setup, where a sentence says what will happen
// (in both languages); reminded at the due time by an e-mail whose link checks in once (a second
// use says the link was used); and "I'm OK today" on the home page. The server's rules (who may
// check in, the single-use link's transaction, missed alerts) are tests/server/daily-checkin*.

const PASSWORD = 'correct horse 42';

// The seeded owner has no time zone (UTC): the browser's clock shows the same hours.
test.use({ timezoneId: 'UTC', locale: 'pt-PT' });

/** "HH:MM" (UTC) `minutes` after `at`. */
const clockAt = (at: number, minutes: number) => new Date(at + minutes * 60_000).toISOString().slice(11, 16);

test('Setup’s daily check-in in plain words; the reminder e-mail’s link checks in once; the home page’s card then says the day is done', async ({
  page,
  request,
  server,
}) => {
  test.setTimeout(180_000);
  const user = await seedUser(server.url);
  const email = `${user.username}@example.com`;
  const login = await request.post('/api/users/auth/login/', { data: { username: user.username, password: PASSWORD } });
  const tokens = (await login.json()) as { access: string; refresh: string };
  const authorization = `Bearer ${tokens.access}`;
  const daily = async () =>
    (await (await request.get('/api/users/me/daily-checkin/', { headers: { authorization } })).json()) as {
      status: string;
      last_ok_at: string | null;
    };
  await signedIn(page, tokens);

  // Setup: due a minute or so from now (a time already passed this minute would be tomorrow's).
  await page.goto('/setup');
  const section = page.locator('section.daily');
  await section.getByLabel('Ativar o check-in diário').check();
  const time = clockAt(Date.now(), new Date().getUTCSeconds() < 45 ? 1 : 2);
  await section.getByLabel('Até às').fill(time);
  await section.getByLabel('Minutos de tolerância antes do alerta').fill('30');
  const until = clockAt(Date.parse(`2000-01-01T${time}:00Z`), 30);
  await expect(section.getByTestId('daily-sentence')).toHaveText(
    `Todos os dias antes das ${time}. Se não fizer o check-in até às ${until}, Maria Silva e João Costa recebem um SMS.`,
  );
  await section.getByRole('button', { name: 'Guardar check-in diário' }).click();
  await expect(page.getByText('Check-in diário guardado.')).toBeVisible();
  await expect(section.getByTestId('daily-status')).toContainText('À espera do próximo check-in');
  const setAt = (await daily()).last_ok_at;
  await page.getByRole('button', { name: 'English' }).click();
  await expect(section.getByTestId('daily-sentence')).toHaveText(
    `Every day before ${time}. If you haven’t checked in by ${until}, Maria Silva and João Costa get an SMS.`,
  );
  await page.getByRole('button', { name: 'Português' }).click();
  await expect(section.getByTestId('daily-sentence')).toContainText('Todos os dias antes das');

  // At the due time, the reminder e-mail: its link asks once more, then checks in.
  let link = '';
  await expect
    .poll(
      async () => {
        const { emails } = (await (await request.get(outboxJsonPath)).json()) as {
          emails: { to: string; text: string }[];
        };
        const mail = emails.find((m) => m.to.includes(email) && m.text.includes('/api/daily/ok/'));
        link = mail?.text.match(/https?:\/\/\S+\/api\/daily\/ok\/\S+?\//)?.[0] ?? '';
        return link;
      },
      { message: 'the daily reminder e-mail', timeout: 110_000, intervals: [1_000] },
    )
    .not.toBe('');
  expect((await daily()).status).toBe('due');
  const mailLink = new URL(link).pathname;
  await page.goto(mailLink);
  await expect(page.getByRole('heading', { name: 'Check-in diário' })).toBeVisible();
  await page.getByRole('button', { name: 'Estou bem' }).click();
  await expect(page.getByRole('heading', { name: 'Obrigado' })).toBeVisible();
  await expect(page.getByText('O seu check-in de hoje está feito. Ninguém é alertado.')).toBeVisible();
  const byMail = await daily();
  expect(byMail.status).toBe('waiting');
  expect(byMail.last_ok_at).not.toBe(setAt);
  // A second use of the link checks in nothing and says why.
  await page.goto(mailLink);
  await expect(page.getByRole('heading', { name: 'Ligação usada ou expirada' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Estou bem' })).toHaveCount(0);
  expect((await daily()).last_ok_at).toBe(byMail.last_ok_at);

  // The home page's card says the day is done, with the time, and offers no second "Estou bem hoje".
  await page.goto('/');
  await expect(page.getByTestId('daily-ok-status')).toContainText('À espera do próximo check-in');
  await expect(page.getByTestId('daily-done')).toContainText(/Feito hoje às \d\d:\d\d ✓/);
  await expect(page.getByRole('button', { name: 'Estou bem hoje' })).toHaveCount(0);
  expect((await daily()).last_ok_at).toBe(byMail.last_ok_at);
});
