import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextIp, PASSWORD } from './accounts-helpers.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

/** Strings an attacker or a broken client might send. */
const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uD800',
    "' OR 1=1 --",
    'Robert"); DROP TABLE users;--',
    '<script>alert(1)</script>',
    '__proto__',
    'x'.repeat(5000),
    '١٢٣٤٥٦٧٨',
    'ADMIN',
    'user@example.com',
    '@',
  ),
);
const hostileValue = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);
/** A field that is sometimes plausible, so some requests get far enough to store a user. */
const field = (plausible: fc.Arbitrary<unknown>) =>
  fc.option(fc.oneof({ arbitrary: plausible, weight: 9 }, { arbitrary: hostileValue, weight: 1 }), {
    nil: undefined,
    freq: 10,
  });

const registrationBody = fc.oneof(
  { arbitrary: registrationRecord(), weight: 3 },
  { arbitrary: fc.anything(), weight: 1 },
);

function registrationRecord() {
  return fc.record(
    {
      username: field(fc.stringMatching(/^[A-Za-z0-9._+-]{1,30}$/)),
      email: field(fc.stringMatching(/^[a-z0-9._-]{1,12}@[a-z0-9-]{1,10}\.(com|pt|org)$/)),
      password1: field(fc.constant(PASSWORD)),
      password2: field(fc.constant(PASSWORD)),
      accept_terms: field(fc.constant(true)),
    },
    // Every key: field() already leaves each out now and then, and leaving keys out on top
    // of that made a complete body too rare for the run to store a user at all.
  );
}

async function counts(t: TestApp) {
  const count = async (table: 'users' | 'one_time_tokens' | 'sessions') =>
    Number(
      (
        await t.app.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { users: await count('users'), tokens: await count('one_time_tokens'), sessions: await count('sessions') };
}

const send = (t: TestApp, url: string, body: unknown) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    // fc.anything() can produce undefined, which has no JSON form: send `null` instead.
    payload: JSON.stringify(body) ?? 'null',
    remoteAddress: nextIp(),
  });

describe(`accounts: random and hostile bodies (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('registration never fails with 5xx and never stores half a user', async () => {
    let created = 0;
    await fc.assert(
      fc.asyncProperty(registrationBody, async (body) => {
        const before = await counts(t);
        const res = await send(t, '/api/users/registration/', body);
        const after = await counts(t);
        expect(res.statusCode, res.body).toBeLessThan(500);
        if (res.statusCode === 201) {
          created += 1;
          const sent = body as { username: string; email?: string | null };
          const user = await t.app.db
            .selectFrom('users')
            .selectAll()
            .where('username', '=', sent.username.trim().normalize('NFKC').toLowerCase())
            .executeTakeFirst();
          expect(user).toBeDefined();
          expect(after.users).toBe(before.users + 1);
          // A user with an address always has its verification key; one without has none.
          expect(after.tokens).toBe(before.tokens + (user?.email ? 1 : 0));
        } else {
          expect([400, 413, 415, 429]).toContain(res.statusCode);
          expect(after).toEqual(before);
        }
      }),
      { numRuns: 80 },
    );
    // The generator is tuned so plenty of runs get as far as storing a user.
    expect(created).toBeGreaterThan(0);
  });

  it('login never fails with 5xx and opens a session only on success', async () => {
    const loginBody = fc.oneof(
      fc.record(
        {
          username: field(fc.constantFrom('propuser', 'PropUser', 'propuser@example.com', 'nobody')),
          password: field(fc.constantFrom(PASSWORD, 'Wrong-Pass-1')),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    const registered = await send(t, '/api/users/registration/', {
      username: 'propuser',
      email: 'propuser@example.com',
      password1: PASSWORD,
      password2: PASSWORD,
      accept_terms: true,
    });
    expect(registered.statusCode).toBe(201);
    // Verified as by the e-mailed link, so the right password logs in.
    await t.app.db.updateTable('users').set({ email_verified: 1 }).where('username', '=', 'propuser').execute();
    await fc.assert(
      fc.asyncProperty(loginBody, async (body) => {
        const before = await counts(t);
        const res = await send(t, '/api/users/auth/login/', body);
        const after = await counts(t);
        expect(res.statusCode, res.body).toBeLessThan(500);
        expect([200, 400, 401, 429]).toContain(res.statusCode);
        expect(after.sessions).toBe(before.sessions + (res.statusCode === 200 ? 1 : 0));
        if (res.statusCode === 200) expect(Object.keys(res.json()).sort()).toEqual(['access', 'refresh']);
      }),
      { numRuns: 80 },
    );
  });

  it('reset confirm, refresh and resend answer hostile bodies with 4xx', async () => {
    const urls = [
      '/api/users/reset-password-confirm/',
      '/api/users/auth/refresh/',
      '/api/users/resend-verification/',
      '/api/users/reset-password/',
    ];
    const body = fc.oneof(
      fc.record(
        {
          uid: field(hostileString),
          token: field(hostileString),
          refresh: field(hostileString),
          email: field(fc.emailAddress()),
          new_password1: field(hostileString),
          new_password2: field(hostileString),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...urls), body, async (url, payload) => {
        const res = await send(t, url, payload);
        expect(res.statusCode, `${url} ${res.body}`).toBeLessThan(500);
      }),
      { numRuns: 120 },
    );
  });
});
