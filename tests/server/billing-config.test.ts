import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { createUser, dbLabel, suiteApp, type TestApp, type TestUser } from './helper.js';

const DAY = 24 * 60 * 60 * 1000;

/** Checks out `plan` and pays through the simulated checkout's POST shortcut; answers the checkout page. */
async function subscribe(t: TestApp, user: TestUser, plan: 'basic' | 'premium') {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/billing/checkout/',
    headers: user.headers,
    payload: { plan },
  });
  expect(res.statusCode).toBe(200);
  const { url } = res.json() as { url: string };
  const page = await t.app.inject({ method: 'GET', url });
  expect((await t.app.inject({ method: 'POST', url: `${url}/pay` })).statusCode).toBe(200);
  return page.body;
}

const me = async (t: TestApp, user: TestUser) => {
  const access = await t.app.tokens.signAccess(user.user.id, user.sessionId);
  const res = await t.app.inject({
    method: 'GET',
    url: '/api/users/me/',
    headers: { authorization: `Bearer ${access}` },
  });
  expect(res.statusCode).toBe(200);
  return (res.json() as { profile: Record<string, unknown> }).profile;
};

type Plan = [price_eur: number, contact_limit: number];

/** The whole answer of GET /api/config/ for these settings: basic is without GPS, premium with it, and the countdowns fixed. */
const configAnswer = (settings: { trial_days: number; basic: Plan; premium: Plan; sms_price_eur: number }) => ({
  trial_days: settings.trial_days,
  plans: {
    basic: { price_eur: settings.basic[0], contact_limit: settings.basic[1], gps: false },
    premium: { price_eur: settings.premium[0], contact_limit: settings.premium[1], gps: true },
  },
  sms_price_eur: settings.sms_price_eur,
  countdown_choices: [0, 3, 5, 10],
});

describe(`GET /api/config/ with the default settings (${dbLabel})`, () => {
  const t = suiteApp();

  it('answers anyone the plans, prices, trial length and countdowns, cacheable for a few minutes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/config/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.json()).toEqual(configAnswer({ trial_days: 3, basic: [3, 3], premium: [5, 10], sms_price_eur: 0.08 }));
  });
});

describe(`plans set in the environment (${dbLabel})`, () => {
  const t = suiteApp({
    TRIAL_DAYS: '5',
    BASIC_CONTACT_LIMIT: '4',
    PREMIUM_CONTACT_LIMIT: '12',
    BASIC_PRICE_EUR: '4',
    PREMIUM_PRICE_EUR: '7.5',
    SMS_PRICE_EUR: '0.1',
  });

  it('come back from /api/config/', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/config/' });
    expect(res.json()).toEqual(configAnswer({ trial_days: 5, basic: [4, 4], premium: [7.5, 12], sms_price_eur: 0.1 }));
  });

  it('govern the trial: 5 days, shown at checkout, then paid premium', async () => {
    const user = await createUser(t.app);
    const page = await subscribe(t, user, 'premium');
    expect(page).toContain('5-day free trial');
    expect(page).toContain('then 7.50 €/month');
    expect(page).toContain('SMS: 0.10 € cada');
    expect(await me(t, user)).toMatchObject({
      has_premium: true,
      is_in_trial: true,
      trial_days_left: 5,
      contact_limit: 12,
      gps_enabled: true,
    });
    t.clock.advance(5 * DAY - 60_000);
    expect(await me(t, user)).toMatchObject({ is_in_trial: true, trial_days_left: 1 });
    t.clock.advance(60_000);
    expect(await me(t, user)).toMatchObject({ has_premium: true, is_in_trial: false, plan: 'premium' });
  });

  it('govern the contact limit: basic takes 4 contacts, not a 5th', async () => {
    const user = await createUser(t.app);
    expect(await subscribe(t, user, 'basic')).toContain('4 €/mês');
    const add = (n: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/emergency/contacts/',
        headers: user.headers,
        payload: { name: `Contacto ${'abcde'[n]}`, phone_number: `+35191200010${n}` },
      });
    for (const n of [0, 1, 2, 3]) expect((await add(n)).statusCode).toBe(201);
    const fifth = await add(4);
    expect(fifth.statusCode).toBe(400);
    expect(fifth.json()).toMatchObject({ detail: 'CONTACT_LIMIT_REACHED:4:basic', code: 'contact_limit_reached' });
  });
});

describe('price settings', () => {
  it('default to today’s prices', () => {
    expect(loadConfig({})).toMatchObject({ BASIC_PRICE_EUR: 3, PREMIUM_PRICE_EUR: 5, SMS_PRICE_EUR: 0.08 });
  });

  it.each([
    ['BASIC_PRICE_EUR', 'three'],
    ['PREMIUM_PRICE_EUR', '-5'],
    ['SMS_PRICE_EUR', '0.085'],
  ])('name %s when it is not an amount in euros to the cent (%s)', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`^Invalid configuration: ${name} must be an amount`),
    );
  });
});
