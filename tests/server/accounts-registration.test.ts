import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastMailTo, linkIn, login, nextIp, PASSWORD, pathOf, post, registerUser } from './accounts-helpers.js';
import { buildTestApp, dbLabel, moveTime, type TestApp } from './helper.js';

const DAY = 24 * 60 * 60 * 1000;

describe(`accounts: registration and e-mail verification (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const userRow = (username: string) =>
    t.app.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();

  it('creates a lowercased, unverified user with an argon2id hash and mails a 3-day link in English', async () => {
    const res = await registerUser(
      t,
      { username: '  MixedCase ', email: 'Mixed.Case@Example.COM' },
      { headers: { 'accept-language': 'en-GB,en;q=0.9' } },
    );
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ detail: 'Verification e-mail sent.' });
    const user = await userRow('mixedcase');
    expect(user).toMatchObject({ email: 'mixed.case@example.com', email_verified: 0, language: 'en', token: null });
    expect(user?.password_hash).toMatch(/^\$argon2id\$/);
    expect(user?.password_hash).not.toContain(PASSWORD);

    const mail = lastMailTo(t, 'mixed.case@example.com');
    expect(mail.subject).toBe('Confirm your e-mail for Alerta');
    const link = linkIn(mail.text);
    expect(link).toMatch(/^http:\/\/alerta\.test\/api\/users\/verify-email\/[A-Za-z0-9_-]{40,}\/$/);
    expect(mail.html).toContain(`href="${link}"`);
    expect(mail.text).toContain('3 days');

    const key = link.split('/').at(-2)!;
    const stored = await t.app.db.selectFrom('one_time_tokens').selectAll().where('user_id', '=', user!.id).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ purpose: 'verify_email', used_at: null, expires_at: t.clock.now() + 3 * DAY });
    expect(stored[0]!.token_hash).not.toContain(key);
  });

  it('writes the mail in Portuguese by default and for pt-BR', async () => {
    await registerUser(t, { username: 'semlingua' });
    expect(lastMailTo(t, 'semlingua@example.com').subject).toBe('Confirme o seu e-mail no Alerta');
    await registerUser(t, { username: 'brasil' }, { headers: { 'accept-language': 'pt-BR,en;q=0.5' } });
    const mail = lastMailTo(t, 'brasil@example.com');
    expect(mail.subject).toBe('Confirme o seu e-mail no Alerta');
    expect(mail.text).toContain('3 dias');
    expect((await userRow('brasil'))?.language).toBe('pt');
  });

  it('returns every problem of one request together, keyed by field, and stores nothing', async () => {
    const before = t.app.outbox.emails.length;
    const res = await post(t, '/api/users/registration/', {
      username: '   ',
      email: 'not-an-address',
      password1: '9731',
      password2: '1379',
      accept_terms: false,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'blank',
      codes: {
        username: 'blank',
        email: 'invalid_email',
        password1: 'password_too_short',
        password2: 'password_mismatch',
        accept_terms: 'terms_required',
      },
      username: ['This field may not be blank.'],
      email: ['Enter a valid email address.'],
      password1: [
        'This password is too short. It must contain at least 8 characters.',
        'This password is entirely numeric.',
      ],
      password2: ["The two password fields didn't match."],
      accept_terms: ['You must accept the terms and privacy policy.'],
    });
    expect(t.app.outbox.emails.length).toBe(before);
  });

  it('refuses common passwords from the spec and from the shipped list', async () => {
    for (const password of ['qwerty', 'password1', 'Jordan23', 'abc1111119']) {
      const res = await registerUser(t, { password1: password, password2: password });
      expect(res.statusCode).toBe(400);
      expect(res.json().password1).toContain('This password is too common.');
    }
  });

  it('answers required fields and a missing terms acceptance', async () => {
    const res = await post(t, '/api/users/registration/', {});
    expect(res.statusCode).toBe(400);
    // The four text fields each answer the same: code `required`, message "This field is required.".
    const textFields = ['username', 'email', 'password1', 'password2'];
    const eachTextField = (value: unknown) => Object.fromEntries(textFields.map((field) => [field, value]));
    expect(res.json()).toEqual({
      code: 'required',
      codes: { ...eachTextField('required'), accept_terms: 'terms_required' },
      ...eachTextField(['This field is required.']),
      accept_terms: ['You must accept the terms and privacy policy.'],
    });
  });

  it('refuses a taken username whatever its case, and never says an e-mail address is registered', async () => {
    const first = await registerUser(t, { username: 'taken', email: 'taken@example.com' });
    expect(first.statusCode).toBe(201);
    const res = await registerUser(t, { username: 'TAKEN', email: 'Taken@Example.com' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      code: 'username_exists',
      codes: { username: 'username_exists' },
      username: ['A user with that username already exists.'],
    });
    // Nothing else wrong: the same answer as for a new address; its holder gets a notice, no account is made.
    const mailsBefore = t.app.outbox.emails.length;
    const again = await registerUser(t, { username: 'someoneelse', email: 'Taken@Example.com' });
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(t.app.outbox.emails.length).toBe(mailsBefore + 1);
    expect(lastMailTo(t, 'taken@example.com').subject).toMatch(/^Tentativa de registo|^Someone tried to sign up/);
    expect(await userRow('someoneelse')).toBeUndefined();
    // With anything else wrong, the address is not even looked at: only the real problems come back.
    const probe = await registerUser(t, { username: 'probe', email: 'taken@example.com', password2: 'other' });
    expect(probe.statusCode).toBe(400);
    expect(Object.keys(probe.json()).sort()).toEqual(['code', 'codes', 'password2']);
    const count = await t.app.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('username', '=', 'taken')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('writes the notice of a sign-up with a taken address in its holder’s saved language, not the typist’s', async () => {
    const english = { headers: { 'accept-language': 'en-GB,en;q=0.9' } };
    const portuguese = { headers: { 'accept-language': 'pt-PT,pt;q=0.9' } };
    expect((await registerUser(t, { username: 'holderen', email: 'holder.en@example.com' }, english)).statusCode).toBe(
      201,
    );
    expect(
      (await registerUser(t, { username: 'holderpt', email: 'holder.pt@example.com' }, portuguese)).statusCode,
    ).toBe(201);

    const onEnglish = await registerUser(t, { username: 'typistpt', email: 'Holder.En@example.com' }, portuguese);
    expect(onEnglish.statusCode).toBe(201);
    expect(lastMailTo(t, 'holder.en@example.com').subject).toBe('Someone tried to sign up to Alerta with your e-mail');
    const onPortuguese = await registerUser(t, { username: 'typisten', email: 'holder.pt@example.com' }, english);
    expect(onPortuguese.statusCode).toBe(201);
    expect(lastMailTo(t, 'holder.pt@example.com').subject).toBe('Tentativa de registo com o seu e-mail no Alerta');
  });

  it('refuses usernames with an @, spaces or more than 30 characters', async () => {
    for (const username of ['bob@example.com', 'two words', 'x'.repeat(31)]) {
      const res = await registerUser(t, { username });
      expect(res.statusCode).toBe(400);
      expect(res.json().username).toHaveLength(1);
    }
    expect((await registerUser(t, { username: 'ana.maria_2+pt-1' })).statusCode).toBe(201);
    // Full-width letters fold to the ordinary ones, so they cannot make a look-alike account.
    const wide = await registerUser(t, { username: 'ＷＩＤＥ', email: 'wide@example.com' });
    expect(wide.statusCode).toBe(201);
    expect(await userRow('wide')).toBeDefined();
    const twin = await registerUser(t, { username: 'wide', email: 'wide2@example.com' });
    expect(twin.json().username).toEqual(['A user with that username already exists.']);
  });

  it('requires an e-mail address', async () => {
    for (const [username, email, code, message] of [
      ['noemail1', undefined, 'required', 'This field is required.'],
      ['noemail2', '', 'blank', 'This field may not be blank.'],
      ['noemail3', null, 'null', 'This field may not be null.'],
    ] as const) {
      const before = t.app.outbox.emails.length;
      const res = await registerUser(t, { username, email });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code, codes: { email: code }, email: [message] });
      expect(t.app.outbox.emails.length).toBe(before);
      expect(await userRow(username)).toBeUndefined();
    }
  });

  it('answers a body that is not an object with a 400', async () => {
    for (const payload of ['[1,2]', '"text"', '42']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/users/registration/',
        headers: { 'content-type': 'application/json' },
        payload,
        remoteAddress: nextIp(),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().non_field_errors[0]).toMatch(/^Invalid data\. Expected a dictionary/);
    }
  });

  it('verifies through the link, and an unverified account cannot log in before', async () => {
    await registerUser(t, { username: 'verifyme' });
    const refused = await login(t, 'verifyme');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ detail: 'email_not_verified', code: 'email_not_verified' });

    const link = pathOf(linkIn(lastMailTo(t, 'verifyme@example.com').text));
    const res = await t.app.inject({ method: 'GET', url: link });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/email-confirmed');
    expect((await userRow('verifyme'))?.email_verified).toBe(1);
    // Opened twice (a mail scanner, a second click): still confirmed.
    expect((await t.app.inject({ method: 'GET', url: link })).headers.location).toBe('/email-confirmed');
    expect((await login(t, 'verifyme')).statusCode).toBe(200);
  });

  it('sends unknown and expired keys to /resend-verification?error=invalid', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: '/api/users/verify-email/not-a-real-key/' });
    expect(unknown.statusCode).toBe(302);
    expect(unknown.headers.location).toBe('/resend-verification?error=invalid');

    await registerUser(t, { username: 'slowpoke' });
    await registerUser(t, { username: 'justintime' });
    const late = pathOf(linkIn(lastMailTo(t, 'slowpoke@example.com').text));
    const onTime = pathOf(linkIn(lastMailTo(t, 'justintime@example.com').text));
    t.clock.advance(3 * DAY - 1000);
    expect((await t.app.inject({ method: 'GET', url: onTime })).headers.location).toBe('/email-confirmed');
    t.clock.advance(1001);
    expect((await t.app.inject({ method: 'GET', url: late })).headers.location).toBe(
      '/resend-verification?error=invalid',
    );
    expect((await userRow('slowpoke'))?.email_verified).toBe(0);
  });

  it('limits registrations to 10 an hour per address with 429 and Retry-After', async () => {
    const ip = nextIp();
    for (let i = 0; i < 10; i += 1) {
      const res = await post(t, '/api/users/registration/', {}, { ip });
      expect(res.statusCode).toBe(400);
    }
    const res = await post(t, '/api/users/registration/', {}, { ip });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe(`accounts: resend verification (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  const GENERIC = {
    detail:
      'If an account with this e-mail address is waiting for verification, a new verification e-mail has been sent.',
  };
  const resend = (email: unknown, options = {}) => post(t, '/api/users/resend-verification/', { email }, options);

  it('sends a fresh working link to an unverified address, in the language asked for', async () => {
    await registerUser(t, { username: 'waiting' });
    const first = linkIn(lastMailTo(t, 'waiting@example.com').text);
    const res = await resend('Waiting@Example.com', { headers: { 'accept-language': 'en' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(GENERIC);
    const mail = lastMailTo(t, 'waiting@example.com');
    expect(mail.subject).toBe('Confirm your e-mail for Alerta');
    const second = linkIn(mail.text);
    expect(second).not.toBe(first);
    expect((await t.app.inject({ method: 'GET', url: pathOf(second) })).headers.location).toBe('/email-confirmed');
  });

  it('gives the same answer, and sends nothing, for unknown and already verified addresses', async () => {
    await registerUser(t, { username: 'done' });
    await t.app.inject({ method: 'GET', url: pathOf(linkIn(lastMailTo(t, 'done@example.com').text)) });
    const before = t.app.outbox.emails.length;
    for (const email of ['nobody@example.com', 'done@example.com']) {
      const res = await resend(email);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(GENERIC);
    }
    expect(t.app.outbox.emails.length).toBe(before);
  });

  it('answers a missing, blank or malformed address with the field texts', async () => {
    const missing = await post(t, '/api/users/resend-verification/', {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      code: 'required',
      codes: { email: 'required' },
      email: ['This field is required.'],
      detail: 'This field is required.',
    });
    expect((await resend('  ')).json().email).toEqual(['This field may not be blank.']);
    expect((await resend('nope')).json().email).toEqual(['Enter a valid email address.']);
  });

  it('limits resends to 5 an hour per address and 5 an hour per client', async () => {
    for (let i = 0; i < 5; i += 1) expect((await resend('limited@example.com')).statusCode).toBe(200);
    const byAddress = await resend('limited@example.com');
    expect(byAddress.statusCode).toBe(429);
    expect(Number(byAddress.headers['retry-after'])).toBeGreaterThan(0);
    moveTime(t, 60 * 60 * 1000 + 1);
    expect((await resend('limited@example.com')).statusCode).toBe(200);

    const ip = nextIp();
    for (let i = 0; i < 5; i += 1) expect((await resend(`a${i}@example.com`, { ip })).statusCode).toBe(200);
    const byIp = await resend('another@example.com', { ip });
    expect(byIp.statusCode).toBe(429);
    expect(byIp.headers['retry-after']).toBeDefined();
  });
});
