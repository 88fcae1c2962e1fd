import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SMS_BUDGET } from '../../server/features/alerts/sms-budget.js';
import { ROTATIONS_PER_HOUR } from '../../server/features/contacts/token.js';
import { nextIp } from './accounts-helpers.js';
import { lisbonAt, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';
import { getLive, postResolve } from './live-fixtures.js';

const MINUTE = 60_000;

describe(`SMS budgets per account and per number (${dbLabel})`, () => {
  const t = suiteApp();

  const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone);
  const send = (token: string, mode: 'real' | 'test' = 'real') =>
    t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${token}/alerts/`,
      headers: { 'idempotency-key': randomUUID() },
      payload: { mode, location: lisbonAt(t.app) },
      remoteAddress: nextIp(),
    });
  const rotate = (headers: { authorization: string }) =>
    t.app.inject({ method: 'POST', url: '/api/users/token/rotate/', headers, remoteAddress: nextIp() });

  it('sends one number at most 10 SMS from one account in 10 minutes: rotations, all-clears and new addresses change nothing', async () => {
    const victim = '+351961500001';
    const owner = await ownerWithContacts(t.app, { contacts: [['Victim', victim]] });
    let token = owner.token;
    for (let round = 0; round < 3; round += 1) {
      // 10 per round: "I'm safe" takes 10 a minute per link.
      for (let i = 0; i < 10; i += 1) {
        const res = await send(token);
        expect(res.statusCode, res.body).toBe(201);
        const resolved = await postResolve(t.app, token, res.json().id, { notify: true });
        expect(resolved.statusCode).toBe(200);
      }
      const rotated = await rotate(owner.headers);
      expect(rotated.statusCode).toBe(200);
      token = rotated.json().token;
      t.clock.advance(MINUTE);
    }
    await t.app.dispatcher.drain();
    // 30 alerts and 30 all-clears asked for within 3 minutes: 10 SMS reach the number.
    expect(smsTo(victim)).toHaveLength(SMS_BUDGET.perAccountNumber.max);

    // Ten minutes after the first ones, the window frees again.
    t.clock.advance(SMS_BUDGET.perAccountNumber.windowMs);
    expect((await send(token)).json()).toMatchObject({ recently_alerted: false });
    await t.app.dispatcher.drain();
    expect(smsTo(victim)).toHaveLength(SMS_BUDGET.perAccountNumber.max + 1);
  });

  it('counts test SMS in the same budget', async () => {
    const number = '+351961500002';
    const owner = await ownerWithContacts(t.app, { contacts: [['TEST Rita', number]] });
    // 5 test SMS an hour per link; a new link each time, and still the number's budget holds.
    let token = owner.token;
    for (let i = 0; i < 5; i += 1) expect((await send(token, 'test')).statusCode).toBe(201);
    token = (await rotate(owner.headers)).json().token;
    for (let i = 0; i < 5; i += 1) expect((await send(token, 'real')).statusCode).toBe(201);
    const beyond = await send(token, 'real');
    expect(beyond.json()).toMatchObject({ recently_alerted: true, deliveries: [{ status: 'failed', withheld: true }] });
    await t.app.dispatcher.drain();
    expect(smsTo(number)).toHaveLength(10);
  });

  it('limits one number across accounts too: several accounts do not add up', async () => {
    const number = '+351961500003';
    const { max } = SMS_BUDGET.perNumber;
    const perAccount = SMS_BUDGET.perAccountNumber.max;
    const beyond: unknown[] = [];
    for (let a = 0; a < Math.ceil(max / perAccount) + 1; a += 1) {
      const owner = await ownerWithContacts(t.app, { contacts: [['Shared', number]] });
      for (let i = 0; i < perAccount; i += 1) {
        const res = await send(owner.token);
        expect(res.statusCode).toBe(201);
        if (a * perAccount + i >= max) beyond.push(res.json());
      }
    }
    await t.app.dispatcher.drain();
    expect(smsTo(number)).toHaveLength(max);
    // Held by the number's ceiling, not by this account's own alerts: the page must not say "alerted recently".
    for (const alert of beyond) {
      expect(alert).toMatchObject({
        recently_alerted: false,
        number_busy: true,
        deliveries: [{ withheld: true, withheld_reason: 'number_busy' }],
      });
    }
  });

  it('counts alerts sent at the same moment one after the other', async () => {
    const number = '+351961500004';
    const owner = await ownerWithContacts(t.app, { contacts: [['Burst', number]] });
    const answers = await Promise.all(Array.from({ length: 16 }, () => send(owner.token)));
    expect(answers.map((res) => res.statusCode)).toEqual(Array(16).fill(201));
    expect(answers.filter((res) => !res.json().recently_alerted)).toHaveLength(SMS_BUDGET.perAccountNumber.max);
    await t.app.dispatcher.drain();
    expect(smsTo(number)).toHaveLength(SMS_BUDGET.perAccountNumber.max);
  });

  it(`limits new links to ${ROTATIONS_PER_HOUR} an hour per account`, async () => {
    const owner = await ownerWithContacts(t.app);
    for (let i = 0; i < ROTATIONS_PER_HOUR; i += 1) expect((await rotate(owner.headers)).statusCode).toBe(200);
    const refused = await rotate(owner.headers);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe(`a real alert is never refused, and the owner hears of each one (${dbLabel})`, () => {
  const t = suiteApp();

  const mailsTo = (to: string) => t.app.outbox.emails.filter((mail) => mail.to === to);

  it('stores an alert beyond the budget, shows it live and in the history, and says the contacts were alerted recently', async () => {
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['Ana', '+351962500001'],
        ['Rui', '+351962500002'],
      ],
    });
    // A leaked link used 10 times from one address: the owner's own alert from another still goes in.
    for (let i = 0; i < 10; i += 1) {
      const junk = await t.app.inject({
        method: 'POST',
        url: `/api/emergency/public/${owner.token}/alerts/`,
        headers: { 'idempotency-key': randomUUID() },
        payload: { mode: 'real', location: null, location_error: 'denied' },
        remoteAddress: '203.0.113.66',
      });
      expect(junk.statusCode).toBe(201);
    }
    const mine = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${owner.token}/alerts/`,
      headers: { 'idempotency-key': randomUUID() },
      payload: { mode: 'real', location: lisbonAt(t.app) },
      remoteAddress: '192.0.2.7',
    });
    expect(mine.statusCode).toBe(201);
    expect(mine.headers['retry-after']).toBeUndefined();
    const alert = mine.json();
    // The leaked link's alerts are this account's own: they did reach Ana and Rui a moment ago.
    expect(alert).toMatchObject({
      proven: false,
      recently_alerted: true,
      number_busy: false,
      deliveries: [
        { contact_name: 'Ana', status: 'failed', withheld: true, withheld_reason: 'recently_alerted' },
        { contact_name: 'Rui', status: 'failed', withheld: true, withheld_reason: 'recently_alerted' },
      ],
    });
    // The status read says the same.
    const status = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${owner.token}/alerts/${alert.id}/`,
    });
    expect(status.json()).toMatchObject({ recently_alerted: true });

    const live = await getLive(t.app, alert.public_id);
    expect(live.statusCode).toBe(200);
    expect(live.json()).toMatchObject({ state: 'active', position: { latitude: 38.7222524 } });

    const history = await t.app.inject({ method: 'GET', url: '/api/emergency/alerts/', headers: owner.headers });
    expect(history.statusCode).toBe(200);
    expect(history.json().find((a: { id: string }) => a.id === alert.id)).toMatchObject({
      location: { latitude: 38.7222524 },
      deliveries: [
        { contact_name: 'Ana', withheld: true, attempts: 0, last_error: expect.stringMatching(/^Not sent/) },
        { contact_name: 'Rui', withheld: true, attempts: 0 },
      ],
    });
    await t.app.dispatcher.drain();
    const sent = t.app.outbox.sms.filter((sms) => sms.to === '+351962500001');
    expect(sent).toHaveLength(10);
  });

  it('mails the owner about real alerts, one e-mail per burst, with a one-click "this wasn\'t me" that makes new links', async () => {
    const owner = await ownerWithContacts(t.app, {
      language: 'en',
      contacts: [
        ['Ana Silva', '+351962500011'],
        ['Rui Costa', '+351962500012'],
      ],
    });
    const email = owner.user.email as string;
    const first = await postAlert(t.app, owner.token, { mode: 'real', location: lisbonAt(t.app) });
    expect(first.statusCode).toBe(201);
    await t.app.background.idle();
    await postAlert(t.app, owner.token, { mode: 'real', location: null, location_error: 'denied' });
    // Test alerts are the owner's own checks: no e-mail.
    await postAlert(t.app, owner.token, { mode: 'test', location: null });
    await t.app.dispatcher.drain();
    await t.app.background.idle();
    // The second real alert, within 10 minutes of the first e-mail, waits for the summary.
    expect(mailsTo(email)).toHaveLength(1);
    t.clock.advance(10 * MINUTE);
    // The summary runs on its timer.
    await t.app.jobs.runDue();
    const [summary] = mailsTo(email);
    expect(mailsTo(email)).toHaveLength(2);
    expect(summary?.text).toContain('1 more real emergency alert was sent from your link since');
    // A later burst starts with its own full e-mail.
    t.clock.advance(10 * MINUTE);
    await postAlert(t.app, owner.token, { mode: 'real', location: null, location_error: 'denied' });
    await t.app.dispatcher.drain();
    await t.app.background.idle();
    const mails = mailsTo(email);
    expect(mails).toHaveLength(3);
    const [withoutPlace, , withPlace] = mails;
    expect(withPlace?.subject).toBe('Alerta: an emergency alert was sent with your link');
    expect(withPlace?.text).toContain('A real emergency alert was sent from your link on');
    expect(withPlace?.text).toContain('Approximate place: 38.72, -9.14');
    expect(withPlace?.text).not.toContain('38.72225');
    expect(withPlace?.text).toContain('Contacts: Ana Silva, Rui Costa.');
    expect(withPlace?.html).toContain('This wasn&#39;t me: new links');
    expect(withoutPlace?.text).toContain('Place: not sent.');

    const link = /http:\/\/alerta\.test(\/api\/users\/not-me\/[\w-]+\/)/.exec(withPlace?.text ?? '')?.[1] as string;
    expect(link).toBeDefined();
    // Opening the link (as a mail scanner would) changes nothing: the page asks for the click.
    const page = await t.app.inject({ method: 'GET', url: link });
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-robots-tag']).toBe('noindex');
    expect(page.body).toContain(`<form method="post" action="${link}">`);
    const pageData = () => t.app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/` });
    expect((await pageData()).statusCode).toBe(200);

    const click = await t.app.inject({
      method: 'POST',
      url: link,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(click.statusCode).toBe(200);
    expect(click.body).toContain('New links made');
    // The leaked link is dead at once; the owner has a new one.
    expect((await pageData()).statusCode).toBe(404);
    const row = await t.app.db
      .selectFrom('users')
      .select('token')
      .where('id', '=', owner.user.id)
      .executeTakeFirstOrThrow();
    expect(row.token).not.toBe(owner.token);
    expect(row.token).toMatch(/^[\w-]{32}$/);
    // Once only: a used link says so.
    const again = await t.app.inject({ method: 'POST', url: link, payload: {} });
    expect(again.statusCode).toBe(410);
    expect((await t.app.inject({ method: 'GET', url: link })).statusCode).toBe(410);
  });

  it('writes the owner e-mail in Portuguese for a Portuguese owner', async () => {
    const owner = await ownerWithContacts(t.app, { language: 'pt', contacts: [['Ana', '+351962500021']] });
    expect((await postAlert(t.app, owner.token, { mode: 'real', location: lisbonAt(t.app) })).statusCode).toBe(201);
    await t.app.background.idle();
    const [mail] = mailsTo(owner.user.email as string);
    expect(mail?.subject).toBe('Alerta: foi enviado um alerta de emergência com a sua ligação');
    expect(mail?.text).toContain('Local aproximado: 38.72, -9.14');
    expect(mail?.html).toContain('Não fui eu: criar novas ligações');
    await t.app.dispatcher.drain();
  });
});
