import type { Page } from '@playwright/test';
import { signedIn } from './app-helpers.js';
import { expect, test } from './fixtures.js';
import { missDailyCheckin } from './missed-daily.js';
import { ownersPhone } from './owner-key.js';
import { outboxSms, type SeededUser, seedUser } from './seed.js';
import { OUTBOX_KEY } from './server.js';
import { expectNoOverflow } from './tiles.js';

// After the server raised the alarm (a missed daily check-in), wherever the owner is signed in:
// the emergency page (its device key) and the home page (the session) show the open alert with
// what raised it, when, since when no sign, and who is on the way and how; "I'm safe" with the
// all-clear ends it, and the contacts' live page, which said why, then says the owner is safe.
// At 320 and 390 px in Portuguese and English, nothing scrolls sideways. An "I'm safe" refused
// for want of proof opens the sign-in right there, focused, and keeps the confirmation.

// The page's times read as the server's UTC instants.
test.use({ timezoneId: 'UTC' });

const WIDTHS = [320, 390] as const;
const locale = (language: 'pt' | 'en') => (language === 'en' ? 'en-GB' : 'pt-PT');
const hhmm = (iso: string, language: 'pt' | 'en') =>
  new Date(iso).toLocaleTimeString(locale(language), { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
const weekday = (iso: string, language: 'pt' | 'en') =>
  new Date(iso).toLocaleString(locale(language), { weekday: 'long', timeZone: 'UTC' });

const TEXT = {
  pt: {
    why: 'Não fez o check-in diário: os seus contactos foram alertados às',
    since: 'Sem sinal seu desde',
    safe: 'Estou em segurança',
    confirm: 'Sim, estou em segurança',
    notify: 'Avisar os contactos por SMS de que estou bem',
    resolved: 'Alerta terminado: está em segurança. Os contactos vão receber um SMS a dizer que está bem.',
    onTheWay: (name: string) => `${name} vai a caminho`,
    bySms: 'por SMS',
    liveWhy: (owner: string) => `${owner} não fez o check-in diário.`,
    liveSince: 'Nenhum sinal desde',
    youAnswered: 'Disse que vai a caminho às',
    liveResolved: 'Alerta terminado: está em segurança',
    language: 'Português',
  },
  en: {
    why: 'You missed your daily check-in: your contacts were alerted at',
    since: 'No sign from you since',
    safe: "I'm safe",
    confirm: "Yes, I'm safe",
    notify: 'Tell my contacts by SMS that I am safe',
    resolved: 'Alert ended: you are safe. Your contacts will get an SMS saying you are safe.',
    onTheWay: (name: string) => `${name} is on the way`,
    bySms: 'by SMS',
    liveWhy: (owner: string) => `${owner} missed their daily check-in.`,
    liveSince: 'No sign since',
    youAnswered: 'You said you are on your way at',
    liveResolved: 'Alert over: they are safe',
    language: 'English',
  },
} as const;

/** Two contacts with numbers of their own: an SMS reply names one alarm, never another test's. */
const contactsOwn = () => {
  const base = 910_000_000 + Math.floor(Math.random() * 8_999_000);
  return [
    { name: 'Maria Silva', phone_number: `+351${base}` },
    { name: 'João Costa', phone_number: `+351${base + 1}` },
  ];
};

/** A contact's own link to the live page, from the alarm's SMS to `phone`. */
async function liveLinkOf(base: string, user: SeededUser, phone: string): Promise<string> {
  const own = /https?:\/\/\S+\/a\/[A-Za-z0-9_-]+\?c=[A-Za-z0-9_-]+/;
  const sms = (await outboxSms(base)).filter((m) => m.to === phone && m.body.includes(user.username));
  const link = sms.map((m) => m.body.match(own)?.[0]).find(Boolean);
  if (!link) throw new Error(`no live link in ${JSON.stringify(sms)}`);
  return link;
}

/** The contact at `phone` answers the alarm's SMS with "1": on the way. */
async function replyOnTheWay(base: string, phone: string): Promise<void> {
  const answer = await fetch(`${base}/dev/outbox/sms/reply/?key=${OUTBOX_KEY}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: phone, body: '1' }),
  });
  expect(answer.status).toBe(200);
}

/** No sideways scroll at either width; a screenshot of each for a person to look at. */
async function atBothWidths(page: Page, label: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 740 });
    await expectNoOverflow(page, label);
    await page.screenshot({ path: `test-results/screenshots/${label}-${width}.png`, fullPage: true });
  }
}

for (const language of ['pt', 'en'] as const) {
  test(`${language}: the emergency page shows the missed day's alarm, why and since when, and ends it with the all-clear; the live page says why, then safe`, async ({
    browser,
    server,
  }) => {
    const t = TEXT[language];
    const user = await seedUser(server.url, { language, contacts: contactsOwn() });
    const [maria, joao] = user.contacts as [SeededUser['contacts'][0], SeededUser['contacts'][0]];
    const missed = await missDailyCheckin(server, user);
    await replyOnTheWay(server.url, maria.phone_number);

    // The contact who answered by SMS: the live page says why, since when, and that they answered.
    const contact = await (await browser.newContext({ timezoneId: 'UTC' })).newPage();
    await contact.goto(await liveLinkOf(server.url, user, maria.phone_number));
    await expect(contact.getByTestId('live-why')).toHaveText(t.liveWhy(user.username));
    await expect(contact.getByTestId('live-since')).toContainText(t.liveSince);
    await expect(contact.getByTestId('live-since')).toContainText(hhmm(missed.since, language));
    await expect(contact.getByTestId('you-answered')).toContainText(t.youAnswered);
    await atBothWidths(contact, `live-${language}`);

    // The owner's phone, the countdown cancelled: the open alert with why, when and who.
    const context = await browser.newContext({ timezoneId: 'UTC' });
    await ownersPhone(context, server.url, user);
    const owner = await context.newPage();
    await owner.goto(`/public/${user.token}/?cancelled=1`);
    const open = owner.getByTestId('open-alerts').locator('article.open-alert');
    await expect(open).toHaveCount(1);
    await expect(open).toHaveAttribute('data-reason', 'missed_daily');
    const created = (await (
      await fetch(`${server.url}/api/emergency/public/${user.token}/open-alerts/`, {
        headers: { authorization: `Bearer ${missed.access}` },
      })
    ).json()) as { created_at: string }[];
    await expect(open.getByTestId('open-alert-why')).toHaveText(`${t.why} ${hhmm(created[0]!.created_at, language)}.`);
    await expect(open.getByText(t.since)).toContainText(weekday(missed.since, language));
    await expect(open.getByText(t.since)).toContainText(hhmm(missed.since, language));
    const responders = open.getByTestId('open-alert-responders');
    await expect(responders).toContainText(t.onTheWay(maria.name));
    await expect(responders).toContainText(t.bySms);
    await expect(responders).not.toContainText(joao.name);
    await atBothWidths(owner, `emergency-open-alert-${language}`);

    await open.getByRole('button', { name: t.safe }).click();
    await expect(open.getByRole('checkbox', { name: t.notify })).toBeChecked();
    await atBothWidths(owner, `emergency-safe-confirm-${language}`);
    await open.getByRole('button', { name: t.confirm }).click();
    await expect(owner.getByTestId('resolved')).toHaveText(t.resolved);

    // The all-clear went to both contacts, and the live page says the owner is safe.
    await expect
      .poll(async () => (await outboxSms(server.url)).filter((m) => m.to === joao.phone_number).length)
      .toBe(2);
    await expect(contact.getByTestId('live-state')).toHaveText(t.liveResolved, { timeout: 15_000 });
    await atBothWidths(contact, `live-resolved-${language}`);
    await context.close();
    await contact.context().close();
  });
}

test('the home page shows the missed day’s alarm in both languages and ends it', async ({ page, server }) => {
  const user = await seedUser(server.url);
  const missed = await missDailyCheckin(server, user);
  await signedIn(page, missed);
  await page.goto('/');
  const open = page.getByTestId('open-alerts').locator('article.open-alert');
  await expect(open).toHaveCount(1);
  for (const language of ['en', 'pt'] as const) {
    const t = TEXT[language];
    await page.getByRole('button', { name: t.language }).click();
    await expect(open.getByTestId('open-alert-why')).toContainText(t.why);
    await expect(open.getByText(t.since)).toContainText(hhmm(missed.since, language));
    await atBothWidths(page, `home-open-alert-${language}`);
  }
  await open.getByRole('button', { name: TEXT.pt.safe }).click();
  await expect(open.getByRole('checkbox', { name: TEXT.pt.notify })).toBeChecked();
  await open.getByRole('button', { name: TEXT.pt.confirm }).click();
  await expect(page.getByTestId('home-alert-resolved')).toHaveText(TEXT.pt.resolved);
  await expectNoOverflow(page, 'home, ended');
  const after = await fetch(`${server.url}/api/emergency/public/${user.token}/open-alerts/`, {
    headers: { authorization: `Bearer ${missed.access}` },
  });
  expect(await after.json()).toEqual([]);
});

test('“I’m safe” refused (this phone’s key removed meanwhile) opens the sign-in right there, focused; signed in, the confirmation ends the alert', async ({
  browser,
  server,
}) => {
  const t = TEXT.en;
  const user = await seedUser(server.url, { language: 'en', contacts: contactsOwn() });
  const missed = await missDailyCheckin(server, user);
  const context = await browser.newContext({ timezoneId: 'UTC' });
  await ownersPhone(context, server.url, user);
  const owner = await context.newPage();
  await owner.goto(`/public/${user.token}/?cancelled=1`);
  const open = owner.getByTestId('open-alerts').locator('article.open-alert');
  await expect(open.getByTestId('open-alert-why')).toContainText(t.why);

  // The owner removes this phone from Setup elsewhere: its key no longer proves them.
  const authorization = `Bearer ${missed.access}`;
  const devices = (await (
    await fetch(`${server.url}/api/users/me/devices/`, { headers: { authorization } })
  ).json()) as {
    id: string;
    current: boolean;
  }[];
  for (const device of devices.filter((d) => !d.current)) {
    const removed = await fetch(`${server.url}/api/users/me/devices/${device.id}/`, {
      method: 'DELETE',
      headers: { authorization },
    });
    expect(removed.ok).toBe(true);
  }

  await open.getByRole('button', { name: t.safe }).click();
  await open.getByRole('button', { name: t.confirm }).click();
  await expect(open.getByTestId('resolve-needs-owner')).toBeVisible();
  const signIn = open.getByTestId('owner-sign-in-here');
  await expect(signIn.getByLabel('Username or e-mail')).toBeFocused();
  await expectNoOverflow(owner, 'the sign-in where "I\'m safe" was refused');
  await signIn.getByLabel('Username or e-mail').fill(user.username);
  await signIn.getByLabel('Password').fill('correct horse 42');
  await signIn.getByRole('button', { name: 'Sign in' }).click();
  // Signed in, the sign-in goes; the confirmation stays, its all-clear still offered: one more "Yes" ends it.
  await expect(open.getByTestId('resolve-needs-owner')).toHaveCount(0);
  await expect(open.getByRole('checkbox', { name: t.notify })).toBeChecked();
  await open.getByRole('button', { name: t.confirm }).click();
  await expect(owner.getByTestId('resolved')).toHaveText(t.resolved);
  await context.close();
});
