import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { buildTestApp, createUser, dbLabel, type TestApp, type TestUser } from './helper.js';

const DAY = 24 * 60 * 60 * 1000;
const URL_ = '/api/emergency/contacts/';
const NO_PLAN = 'An active subscription is required to add contacts.';
const DUPLICATE = 'This number is already in your contacts.';

describe(`contacts (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const subscriber = async (plan: 'basic' | 'premium', trialDays?: number) => {
    const user = await createUser(t.app);
    await activateSubscription(t.app.db, { userId: user.user.id, plan, now: t.clock.now(), trialDays });
    return user;
  };
  const add = (user: TestUser, payload: unknown) => {
    // Each add a millisecond later, so the list's order (oldest first) is well defined.
    t.clock.advance(1);
    return t.app.inject({ method: 'POST', url: URL_, headers: user.headers, payload: payload as object });
  };
  const list = async (user: TestUser) => {
    const res = await t.app.inject({ method: 'GET', url: URL_, headers: user.headers });
    expect(res.statusCode).toBe(200);
    return res.json() as { id: string; name: string; phone_number: string; relationship: string }[];
  };

  it('answers 401 without a valid access token', async () => {
    for (const method of ['GET', 'POST'] as const) {
      expect((await t.app.inject({ method, url: URL_ })).statusCode).toBe(401);
    }
    const bad = { authorization: 'Bearer not-a-jwt' };
    expect((await t.app.inject({ method: 'GET', url: URL_, headers: bad })).statusCode).toBe(401);
    const res = await t.app.inject({ method: 'DELETE', url: `${URL_}00000000-0000-4000-8000-000000000000/` });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'not_authenticated' });
  });

  it('answers 402 to adding without an active subscription, and stores nothing', async () => {
    const user = await createUser(t.app);
    const res = await add(user, { name: 'Maria', phone_number: '+351912345678' });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({ detail: NO_PLAN, code: 'subscription_required' });
    expect(await list(user)).toEqual([]);
  });

  it('answers 402 once a cancelled plan has ended, but still lists and removes contacts', async () => {
    const user = await subscriber('basic');
    const created = await add(user, { name: 'Maria', phone_number: '+351912345678' });
    expect(created.statusCode).toBe(201);
    await t.app.db
      .updateTable('subscriptions')
      .set({ cancel_at_period_end: 1 })
      .where('user_id', '=', user.user.id)
      .execute();
    t.clock.advance(31 * DAY);
    user.headers.authorization = `Bearer ${await t.app.tokens.signAccess(user.user.id, user.sessionId)}`;
    const res = await add(user, { name: 'Rui', phone_number: '+351912345679' });
    expect(res.statusCode).toBe(402);
    expect(await list(user)).toHaveLength(1);
    const del = await t.app.inject({ method: 'DELETE', url: `${URL_}${created.json().id}/`, headers: user.headers });
    expect(del.statusCode).toBe(204);
  });

  it('adds three contacts on the basic plan and refuses the fourth with CONTACT_LIMIT_REACHED:3:basic', async () => {
    const user = await subscriber('basic');
    const inputs = [
      { name: ' Maria  da Graça ', phone_number: '+351 912 345 678', relationship: 'Mãe' },
      { name: "O'Brien", phone_number: '447911123456' },
      { name: 'Ana-Sofia', phone_number: '+1 (202) 555-0123', relationship: null },
    ];
    const created = [];
    for (const input of inputs) {
      const res = await add(user, input);
      expect(res.statusCode).toBe(201);
      created.push(res.json());
    }
    expect(created).toEqual([
      {
        id: expect.any(String),
        name: 'Maria da Graça',
        phone_number: '+351912345678',
        relationship: 'Mãe',
        alerted: true,
        state: 'invited',
        invite_again_at: expect.any(String),
      },
      {
        id: expect.any(String),
        name: "O'Brien",
        phone_number: '+447911123456',
        relationship: '',
        alerted: true,
        state: 'invited',
        invite_again_at: expect.any(String),
      },
      {
        id: expect.any(String),
        name: 'Ana-Sofia',
        phone_number: '+12025550123',
        relationship: '',
        alerted: true,
        state: 'invited',
        invite_again_at: expect.any(String),
      },
    ]);
    const fourth = await add(user, { name: 'Rui', phone_number: '+5511987654321' });
    expect(fourth.statusCode).toBe(400);
    expect(fourth.json()).toEqual({
      detail: 'CONTACT_LIMIT_REACHED:3:basic',
      code: 'contact_limit_reached',
      max: 3,
      plan: 'basic',
    });
    expect(await list(user)).toEqual(created);
    const stored = await t.app.db
      .selectFrom('contacts')
      .select('phone_number')
      .where('user_id', '=', user.user.id)
      .execute();
    expect(stored.map((row) => row.phone_number).sort()).toEqual(['+12025550123', '+351912345678', '+447911123456']);
  });

  it('refuses a number already in the list, whatever its spelling', async () => {
    const user = await subscriber('premium');
    expect((await add(user, { name: 'Maria', phone_number: '+351912345678' })).statusCode).toBe(201);
    for (const spelling of ['+351 912 345 678', '351912345678', '00351 91 234 5678', '+351 (91) 234-5678']) {
      const res = await add(user, { name: 'Outra', phone_number: spelling });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        phone_number: [DUPLICATE],
        code: 'duplicate_phone',
        codes: { phone_number: 'duplicate_phone' },
      });
    }
    // Another user may have the same person as a contact.
    const other = await subscriber('basic');
    expect((await add(other, { name: 'Maria', phone_number: '+351 912 345 678' })).statusCode).toBe(201);
  });

  it('answers field errors from the shared rules, each with its code, and stores nothing', async () => {
    const CODES: Record<string, string> = {
      'Name is required.': 'name_required',
      'Name must have 2 to 50 characters: letters, spaces, apostrophes and hyphens.': 'invalid_name',
      'Phone number is required.': 'phone_required',
      'Phone number must be in international format, e.g. +351912345678.': 'phone_format',
      'Phone number must have at least 9 digits.': 'phone_too_short',
      'Phone number must have at most 15 digits.': 'phone_too_long',
      'Relationship must have at most 50 characters.': 'invalid_relationship',
    };
    const user = await subscriber('premium');
    const cases: [unknown, Record<string, string[]>][] = [
      [{ name: '', phone_number: '+351912345678' }, { name: ['Name is required.'] }],
      [{ phone_number: '+351912345678' }, { name: ['Name is required.'] }],
      [
        { name: 'A', phone_number: '+351912345678' },
        { name: ['Name must have 2 to 50 characters: letters, spaces, apostrophes and hyphens.'] },
      ],
      [
        { name: '<script>x</script>', phone_number: '+351912345678' },
        { name: ['Name must have 2 to 50 characters: letters, spaces, apostrophes and hyphens.'] },
      ],
      [{ name: 'Maria', phone_number: '' }, { phone_number: ['Phone number is required.'] }],
      [{ name: 'Maria' }, { phone_number: ['Phone number is required.'] }],
      [
        { name: 'Maria', phone_number: 'call me' },
        { phone_number: ['Phone number must be in international format, e.g. +351912345678.'] },
      ],
      [
        { name: 'Maria', phone_number: "+351'; DROP TABLE contacts;--" },
        { phone_number: ['Phone number must be in international format, e.g. +351912345678.'] },
      ],
      [{ name: 'Maria', phone_number: '+3519123' }, { phone_number: ['Phone number must have at least 9 digits.'] }],
      [
        { name: 'Maria', phone_number: '+49301234567890123' },
        { phone_number: ['Phone number must have at most 15 digits.'] },
      ],
      [
        { name: 'Maria', phone_number: '+351912345678', relationship: 'x'.repeat(51) },
        { relationship: ['Relationship must have at most 50 characters.'] },
      ],
      [
        { name: '', phone_number: '12' },
        { name: ['Name is required.'], phone_number: ['Phone number must have at least 9 digits.'] },
      ],
    ];
    for (const [payload, errors] of cases) {
      const res = await add(user, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      const codes = Object.fromEntries(Object.entries(errors).map(([field, [text]]) => [field, CODES[text!]]));
      expect(res.json()).toEqual({ ...errors, code: Object.values(codes)[0], codes });
    }
    expect(await list(user)).toEqual([]);
  });

  it('answers 400, never 500, to bodies of the wrong shape', async () => {
    const user = await subscriber('premium');
    for (const payload of [{ name: 42, phone_number: 351912345678 }, [1, 2], 'text', { name: { $gt: '' } }]) {
      const res = await t.app.inject({
        method: 'POST',
        url: URL_,
        headers: { ...user.headers, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().code).toBeTypeOf('string');
    }
    const broken = await t.app.inject({
      method: 'POST',
      url: URL_,
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(broken.statusCode).toBe(400);
    expect(await list(user)).toEqual([]);
  });

  it('gives premium and trial subscribers ten contacts', async () => {
    for (const user of [await subscriber('premium'), await subscriber('premium', 3)]) {
      for (let i = 0; i < 10; i++) {
        const res = await add(user, { name: 'Contacto', phone_number: `+35191234560${i}` });
        expect(res.statusCode).toBe(201);
      }
      const res = await add(user, { name: 'Contacto', phone_number: '+351912345699' });
      expect(res.json()).toEqual({
        detail: 'CONTACT_LIMIT_REACHED:10:premium',
        code: 'contact_limit_reached',
        max: 10,
        plan: 'premium',
      });
    }
  });

  it('removes a contact with 204, freeing its place, and answers 404 to anyone else', async () => {
    const owner = await subscriber('basic');
    const stranger = await subscriber('basic');
    const ids: string[] = [];
    for (const phone of ['+351912345601', '+351912345602', '+351912345603']) {
      ids.push((await add(owner, { name: 'Pessoa', phone_number: phone })).json().id);
    }
    const del = (user: TestUser, id: string) =>
      t.app.inject({ method: 'DELETE', url: `${URL_}${encodeURIComponent(id)}/`, headers: user.headers });

    const [first, second] = ids as [string, string, string];
    expect((await del(stranger, first)).statusCode).toBe(404);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id', "1' OR '1'='1", 'x'.repeat(150)]) {
      const res = await del(owner, id);
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
    expect(await list(owner)).toHaveLength(3);

    const res = await del(owner, first);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await del(owner, first)).statusCode).toBe(404);
    expect((await list(owner)).map((c) => c.id)).toEqual(ids.slice(1));
    // The freed place takes a new contact, even the number just removed.
    expect((await add(owner, { name: 'Pessoa', phone_number: '+351912345601' })).statusCode).toBe(201);
    expect((await add(owner, { name: 'Pessoa', phone_number: '+351912345604' })).statusCode).toBe(400);
    expect((await del(owner, second)).statusCode).toBe(204);
  });

  it('lets exactly one of ten simultaneous adds take the last place', async () => {
    const user = await subscriber('basic');
    for (const phone of ['+351912345601', '+351912345602']) {
      expect((await add(user, { name: 'Pessoa', phone_number: phone })).statusCode).toBe(201);
    }
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => add(user, { name: 'Pessoa', phone_number: `+35193000000${i}` })),
    );
    const codes = results.map((res) => res.statusCode).sort();
    expect(codes).toEqual([201, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const res of results.filter((r) => r.statusCode === 400)) {
      expect(res.json().detail).toBe('CONTACT_LIMIT_REACHED:3:basic');
    }
    expect(await list(user)).toHaveLength(3);
  });

  it('stores one copy when the same number is added several times at once', async () => {
    const user = await subscriber('premium');
    const spellings = ['+351912345678', '+351 912 345 678', '351912345678', '00351912345678', '+351 91 234 56 78'];
    const results = await Promise.all(spellings.map((phone) => add(user, { name: 'Maria', phone_number: phone })));
    expect(results.map((res) => res.statusCode).sort()).toEqual([201, 400, 400, 400, 400]);
    for (const res of results.filter((r) => r.statusCode === 400)) expect(res.json().phone_number).toEqual([DUPLICATE]);
    expect(await list(user)).toHaveLength(1);
  });

  it('deletes the contacts and the token with the account', async () => {
    const user = await subscriber('basic');
    for (const phone of ['+351912345601', '+351912345602']) {
      expect((await add(user, { name: 'Pessoa', phone_number: phone })).statusCode).toBe(201);
    }
    const { token } = await t.app.db
      .selectFrom('users')
      .select('token')
      .where('id', '=', user.user.id)
      .executeTakeFirstOrThrow();
    expect((await t.app.inject({ method: 'GET', url: `/api/emergency/public/${token}/` })).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'DELETE', url: '/api/users/delete-account/', headers: user.headers });
    expect(res.statusCode).toBe(204);
    expect(await t.app.db.selectFrom('contacts').select('id').where('user_id', '=', user.user.id).execute()).toEqual(
      [],
    );
    expect(
      await t.app.db
        .selectFrom('users')
        .select('id')
        .where('token', '=', token as string)
        .execute(),
    ).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: `/api/emergency/public/${token}/` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: URL_, headers: user.headers })).statusCode).toBe(401);
  });

  it('loses the contacts and the token with the account (foreign keys cascade)', async () => {
    const user = await subscriber('basic');
    const other = await subscriber('basic');
    for (const who of [user, other]) {
      expect((await add(who, { name: 'Maria', phone_number: '+351912345678' })).statusCode).toBe(201);
    }
    await t.app.db.deleteFrom('users').where('id', '=', user.user.id).execute();
    const left = await t.app.db
      .selectFrom('contacts')
      .select('user_id')
      .where('user_id', 'in', [user.user.id, other.user.id])
      .execute();
    expect(left.map((row) => row.user_id)).toEqual([other.user.id]);
    expect(await t.app.db.selectFrom('users').select('token').where('id', '=', user.user.id).execute()).toEqual([]);
    expect((await list(other)).map((c) => c.phone_number)).toEqual(['+351912345678']);
  });
});

describe(`contact limits from the configuration (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ BASIC_CONTACT_LIMIT: '1', PREMIUM_CONTACT_LIMIT: '2', LONG_PHONE_NUMBERS: '1' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('uses BASIC_CONTACT_LIMIT and PREMIUM_CONTACT_LIMIT', async () => {
    for (const [plan, max] of [
      ['basic', 1],
      ['premium', 2],
    ] as const) {
      const user = await createUser(t.app);
      await activateSubscription(t.app.db, { userId: user.user.id, plan, now: t.clock.now() });
      for (let i = 0; i <= max; i++) {
        const res = await t.app.inject({
          method: 'POST',
          url: URL_,
          headers: user.headers,
          payload: { name: 'Pessoa', phone_number: `+35191234567${i}` },
        });
        if (i < max) expect(res.statusCode).toBe(201);
        else
          expect(res.json()).toEqual({
            detail: `CONTACT_LIMIT_REACHED:${max}:${plan}`,
            code: 'contact_limit_reached',
            max,
            plan,
          });
      }
    }
  });

  it('accepts numbers longer than 15 digits with LONG_PHONE_NUMBERS', async () => {
    const user = await createUser(t.app);
    await activateSubscription(t.app.db, { userId: user.user.id, plan: 'basic', now: t.clock.now() });
    const res = await t.app.inject({
      method: 'POST',
      url: URL_,
      headers: user.headers,
      payload: { name: 'Escritório', phone_number: '+49 30 1234567890123' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().phone_number).toBe('+49301234567890123');
  });
});
