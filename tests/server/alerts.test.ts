import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertsOf, eventually, LISBON, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, createUser, dbLabel, suiteApp, type TestApp } from './helper.js';

describe(`alert pipeline (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone);
  const getAlert = (token: string, id: string) =>
    t.app.inject({ method: 'GET', url: `/api/emergency/public/${token}/alerts/${id}/` });

  it('sends one SMS per contact in the owner language with a maps link, once, and sees them delivered', async () => {
    const owner = await ownerWithContacts(t.app, {
      language: 'pt',
      contacts: [
        ['Ana Silva', '+351911000001'],
        ['Rui Costa', '+351911000002'],
      ],
    });
    const key = randomUUID();
    const first = await postAlert(t.app, owner.token, { mode: 'real', location: LISBON }, key);
    expect(first.statusCode).toBe(201);
    const alert = first.json();
    expect(alert).toMatchObject({
      mode: 'real',
      deliveries: [{ contact_name: 'Ana Silva' }, { contact_name: 'Rui Costa' }],
    });
    expect(alert.public_id).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(new Date(alert.created_at).toISOString()).toBe(alert.created_at);
    await t.app.dispatcher.drain();

    for (const phone of ['+351911000001', '+351911000002']) {
      const sent = smsTo(phone);
      expect(sent).toHaveLength(1);
      expect(sent[0]?.body).toContain(`EMERGENCIA: ${owner.user.username} precisa de ajuda`);
      expect(sent[0]?.body).toContain('https://maps.google.com/?q=38.72225,-9.13934');
      expect(sent[0]?.body).toContain('precisao 12 m, 14:03 UTC');
    }

    const again = await postAlert(t.app, owner.token, { mode: 'real', location: LISBON }, key);
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(alert.id);
    await t.app.dispatcher.drain();
    expect(smsTo('+351911000001')).toHaveLength(1);
    expect(smsTo('+351911000002')).toHaveLength(1);

    const final = await eventually(
      async () => (await getAlert(owner.token, alert.id)).json(),
      (body) => body.deliveries.every((d: { status: string }) => d.status === 'delivered'),
    );
    expect(final.deliveries).toEqual([
      { contact_name: 'Ana Silva', status: 'delivered' },
      { contact_name: 'Rui Costa', status: 'delivered' },
    ]);
    // Also readable by public id; each sent SMS is recorded once for billing.
    expect((await getAlert(owner.token, alert.public_id)).json().id).toBe(alert.id);
    const usage = await t.app.db.selectFrom('usage_records').selectAll().where('user_id', '=', owner.user.id).execute();
    expect(usage).toHaveLength(2);
    const stored = await t.app.db.selectFrom('alerts').selectAll().where('id', '=', alert.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ latitude: LISBON.latitude, longitude: LISBON.longitude, accuracy: 12 });
  });

  it('answers a new alert with its deliveries as stored, listed as its status lists them', async () => {
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['zoe', '+351921000011'],
        ['Bruno', '+351921000012'],
        ['ana', '+351921000013'],
      ],
    });
    const posted = await postAlert(t.app, owner.token, { mode: 'real', location: LISBON });
    expect(posted.statusCode).toBe(201);
    const answer = posted.json();
    // By name, by code unit whatever the database's collation: capitals first. Each written
    // already taken by the dispatcher, which had free slots: `sending`.
    expect(answer.deliveries).toEqual([
      { contact_name: 'Bruno', status: 'sending' },
      { contact_name: 'ana', status: 'sending' },
      { contact_name: 'zoe', status: 'sending' },
    ]);
    expect(answer).toMatchObject({ recently_alerted: false, number_busy: false });
    const status = (await getAlert(owner.token, answer.id)).json();
    expect(status.deliveries.map((d: { contact_name: string }) => d.contact_name)).toEqual(['Bruno', 'ana', 'zoe']);
    await t.app.dispatcher.drain();
  });

  it('replays the same key 10 times in a row and 10 at once as one alert with one SMS per contact', async () => {
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['Ana', '+351921000001'],
        ['Rui', '+351921000002'],
      ],
    });
    const key = randomUUID();
    const serial = [];
    for (let i = 0; i < 10; i++) serial.push(await postAlert(t.app, owner.token, undefined, key));
    expect(serial.map((r) => r.statusCode)).toEqual([201, ...Array(9).fill(200)]);
    expect(new Set(serial.map((r) => r.json().id)).size).toBe(1);

    const other = await ownerWithContacts(t.app, { contacts: [['Eva', '+351921000003']] });
    const concurrentKey = randomUUID();
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, () => postAlert(t.app, other.token, undefined, concurrentKey)),
    );
    expect(concurrent.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(concurrent.filter((r) => r.statusCode === 200)).toHaveLength(9);
    expect(new Set(concurrent.map((r) => r.json().id)).size).toBe(1);

    await t.app.dispatcher.drain();
    expect(smsTo('+351921000001')).toHaveLength(1);
    expect(smsTo('+351921000002')).toHaveLength(1);
    expect(smsTo('+351921000003')).toHaveLength(1);
    const alerts = await t.app.db
      .selectFrom('alerts')
      .select('id')
      .where('user_id', 'in', [owner.user.id, other.user.id])
      .execute();
    expect(alerts).toHaveLength(2);
  });

  it('gives the emergency page what it caches: owner, settings, contacts and offline texts', async () => {
    const owner = await ownerWithContacts(t.app, { language: 'en' });
    const url = `/api/emergency/public/${owner.token}/`;
    // The link alone: the contacts' names and masked numbers.
    const linkOnly = await t.app.inject({ method: 'GET', url });
    expect(linkOnly.statusCode).toBe(200);
    expect(linkOnly.json()).toMatchObject({
      contacts: [
        { name: 'Ana Silva', phone_number: '•••••••678' },
        { name: 'Rui Costa', phone_number: '•••••••789' },
      ],
      numbers_masked: true,
    });
    // The owner's page, signed in: the full numbers, for "send from my phone".
    const res = await t.app.inject({ method: 'GET', url, headers: owner.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      owner_name: owner.user.username,
      time_zone: null,
      language: 'en',
      gps_enabled: true,
      countdown_seconds: 5,
      contacts: [
        { id: expect.any(String), name: 'Ana Silva', phone_number: '+351912345678' },
        { id: expect.any(String), name: 'Rui Costa', phone_number: '+351913456789' },
      ],
      numbers_masked: false,
      messages: {
        real: `EMERGENCY: ${owner.user.username} needs help now. Location unavailable.`,
        test: `TEST from Alerta: ${owner.user.username} is testing alerts. This is not an emergency. Location unavailable.`,
      },
      checkin_pin: false,
      push_public_key: t.app.push.publicKey,
    });
    expect(t.app.push.publicKey).toMatch(/^[\w-]{80,}$/);
  });

  it('answers 404 for an unknown or rotated token and 402 without an active plan', async () => {
    const owner = await ownerWithContacts(t.app);
    for (const url of ['/api/emergency/public/nope/', `/api/emergency/public/nope/alerts/${randomUUID()}/`]) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    }
    expect((await postAlert(t.app, 'nope')).json()).toMatchObject({ code: 'not_found' });

    await t.app.db.updateTable('users').set({ token: 'rotated-token-value' }).where('id', '=', owner.user.id).execute();
    expect((await postAlert(t.app, owner.token)).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/` })).statusCode).toBe(404);

    const lapsed = await ownerWithContacts(t.app, { plan: null });
    const page = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${lapsed.token}/` });
    expect(page.statusCode).toBe(402);
    const post = await postAlert(t.app, lapsed.token);
    expect(post.statusCode).toBe(402);
    expect(post.json()).toEqual({
      detail: 'An active subscription is required to send alerts.',
      code: 'subscription_required',
    });
    // The token is the credential: it is answered for before the request itself is looked at.
    expect((await postAlert(t.app, 'nope', { mode: 'panic' }, null)).statusCode).toBe(404);
    expect((await postAlert(t.app, lapsed.token, { mode: 'panic' }, null)).statusCode).toBe(402);
  });

  it('answers a replayed Idempotency-Key with its alert after the plan lapsed, and refuses a new key', async () => {
    const owner = await ownerWithContacts(t.app);
    const key = randomUUID();
    const first = await postAlert(t.app, owner.token, { mode: 'real', location: null }, key);
    expect(first.statusCode).toBe(201);
    // The plan ends while the phone still holds the request it is retrying.
    await t.app.db
      .updateTable('subscriptions')
      .set({ status: 'canceled', current_period_end: t.clock.now() - 1 })
      .where('user_id', '=', owner.user.id)
      .execute();
    const replay = await postAlert(t.app, owner.token, { mode: 'real', location: null }, key);
    expect(replay.statusCode).toBe(200);
    expect(replay.json().id).toBe(first.json().id);
    // The key as the phone may spell it (upper case, padded) is the same key.
    const spelled = await postAlert(t.app, owner.token, { mode: 'real', location: null }, ` ${key.toUpperCase()} `);
    expect(spelled.statusCode).toBe(200);
    expect(spelled.json().id).toBe(first.json().id);
    // Another request under the same key is still refused, and a new key needs a plan.
    expect((await postAlert(t.app, owner.token, { mode: 'test', location: null }, key)).statusCode).toBe(422);
    const fresh = await postAlert(t.app, owner.token, { mode: 'real', location: null }, randomUUID());
    expect(fresh.statusCode).toBe(402);
    expect(await alertsOf(t.app, owner.user.id)).toHaveLength(1);
  });

  it('requires a UUID Idempotency-Key and a valid body, with clear 400s', async () => {
    const owner = await ownerWithContacts(t.app);
    const missing = await postAlert(t.app, owner.token, { mode: 'real', location: null }, null);
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'idempotency_key_required' });
    expect(missing.json().detail).toMatch(/Idempotency-Key header is required/);
    const malformed = await postAlert(t.app, owner.token, { mode: 'real', location: null }, 'not-a-uuid');
    expect(malformed.json()).toEqual({
      detail: 'The Idempotency-Key header must be a UUID.',
      code: 'idempotency_key_invalid',
    });

    const badMode = await postAlert(t.app, owner.token, { mode: 'panic', location: null });
    expect(badMode.statusCode).toBe(400);
    expect(badMode.json()).toEqual({
      mode: ['"panic" is not a valid choice.'],
      code: 'invalid_choice',
      codes: { mode: 'invalid_choice' },
    });
    const noFixTime = await postAlert(t.app, owner.token, {
      mode: 'real',
      location: { latitude: 38.7, longitude: -9.1, accuracy: 5 },
    });
    expect(noFixTime.json()).toEqual({
      'location.captured_at': ['This field is required.'],
      code: 'required',
      codes: { 'location.captured_at': 'required' },
    });
    const badPlace = await postAlert(t.app, owner.token, {
      mode: 'real',
      location: { ...LISBON, latitude: 91 },
    });
    expect(badPlace.statusCode).toBe(400);
    expect(badPlace.json()).toHaveProperty(['location.latitude']);
    const badTime = await postAlert(t.app, owner.token, { mode: 'real', location: { ...LISBON, captured_at: 'soon' } });
    expect(badTime.statusCode).toBe(400);
    const notJson = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${owner.token}/alerts/`,
      headers: { 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      payload: '{"mode":',
    });
    expect(notJson.statusCode).toBe(400);
    expect(await alertsOf(t.app, owner.user.id)).toEqual([]);
  });

  it('accepts an epoch fix time and says why the location is missing', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351931000001']] });
    const fixAt = t.clock.now() - 60_000;
    const epoch = await postAlert(t.app, owner.token, { mode: 'real', location: { ...LISBON, captured_at: fixAt } });
    expect(epoch.statusCode).toBe(201);
    const denied = await postAlert(t.app, owner.token, { mode: 'real', location: null, location_error: 'denied' });
    expect(denied.statusCode).toBe(201);
    await t.app.dispatcher.drain();
    const bodies = smsTo('+351931000001').map((sms) => sms.body);
    const hhmm = new Date(fixAt).toISOString().slice(11, 16);
    expect(bodies).toContainEqual(expect.stringContaining(`(accuracy 12 m, ${hhmm} UTC)`));
    expect(bodies).toContainEqual(expect.stringContaining('Location unavailable (permission denied).'));
  });

  it('keeps no location on the basic plan and says nothing of it', async () => {
    const owner = await ownerWithContacts(t.app, { plan: 'basic', contacts: [['Ana', '+351941000001']] });
    const page = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/` });
    expect(page.json()).toMatchObject({ gps_enabled: false });
    expect(page.json().messages.real).toBe(`EMERGENCY: ${owner.user.username} needs help now.`);
    const res = await postAlert(t.app, owner.token, { mode: 'real', location: LISBON });
    expect(res.statusCode).toBe(201);
    await t.app.dispatcher.drain();
    // The live link is this contact's own: the alert's public id and a contact key.
    expect(smsTo('+351941000001').map((sms) => sms.body)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^EMERGENCY: ${owner.user.username} needs help now\\. Reply 1 if you are on your way\\. Follow: http://alerta\\.test/a/${res.json().public_id}\\?c=[\\w-]{11}$`,
        ),
      ),
    ]);
    const stored = await t.app.db
      .selectFrom('alerts')
      .selectAll()
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ latitude: null, longitude: null, accuracy: null, captured_at: null });
  });

  it('sends a test SMS only to contacts named TEST, and refuses when there are none', async () => {
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['TEST Ana', '+351951000001'],
        ['Rui', '+351951000002'],
        ['teste Eva', '+351951000003'],
      ],
    });
    const res = await postAlert(t.app, owner.token, { mode: 'test', location: LISBON });
    expect(res.statusCode).toBe(201);
    expect(res.json().deliveries.map((d: { contact_name: string }) => d.contact_name)).toEqual([
      'TEST Ana',
      'teste Eva',
    ]);
    await t.app.dispatcher.drain();
    expect(smsTo('+351951000001')[0]?.body).toMatch(/^TEST from Alerta: .* This is not an emergency\. Location: https/);
    expect(smsTo('+351951000002')).toEqual([]);
    expect(smsTo('+351951000003')).toHaveLength(1);

    const none = await ownerWithContacts(t.app, { contacts: [['Rui', '+351951000004']] });
    const refused = await postAlert(t.app, none.token, { mode: 'test', location: null });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'no_test_contacts' });
    expect(refused.json().detail).toMatch(/starting with TEST/);
  });

  it('shows the owner their alerts newest first with delivery statuses', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351961000001']] });
    const older = (await postAlert(t.app, owner.token)).json();
    t.clock.advance(1000);
    const newer = (
      await postAlert(t.app, owner.token, { mode: 'real', location: null, location_error: 'timeout' })
    ).json();
    await t.app.dispatcher.drain();
    expect((await t.app.inject({ method: 'GET', url: '/api/emergency/alerts/' })).statusCode).toBe(401);
    const res = await t.app.inject({ method: 'GET', url: '/api/emergency/alerts/', headers: owner.headers });
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.map((a: { id: string }) => a.id)).toEqual([newer.id, older.id]);
    expect(list[0]).toMatchObject({ location: null, location_error: 'timeout', mode: 'real' });
    expect(list[1].location).toMatchObject({
      latitude: LISBON.latitude,
      captured_at: new Date(LISBON.captured_at).toISOString(),
    });
    expect(list[1].deliveries[0]).toMatchObject({ contact_name: 'Ana', phone_number: '+351961000001', attempts: 1 });
    expect(['sent', 'delivered']).toContain(list[1].deliveries[0].status);

    const stranger = await createUser(t.app);
    const theirs = await t.app.inject({ method: 'GET', url: '/api/emergency/alerts/', headers: stranger.headers });
    expect(theirs.json()).toEqual([]);
    const other = await ownerWithContacts(t.app);
    expect((await getAlert(other.token, older.id)).statusCode).toBe(404);
  });
});

describe(`SMS delivery receipts without Twilio (${dbLabel})`, () => {
  const t = suiteApp();

  it('are not answered: the route exists only for the document', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/sms/status/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'MessageSid=SM1&MessageStatus=delivered',
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Not found.', code: 'not_found' });
  });
});

describe(`alert rate limits (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('never refuses a real alert per token: beyond the SMS budget it is stored without SMS, replays free', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351971000001']] });
    const key = randomUUID();
    for (let i = 0; i < 10; i++) {
      const res = await postAlert(t.app, owner.token, undefined, i === 0 ? key : randomUUID());
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ recently_alerted: false });
    }
    const beyond = await postAlert(t.app, owner.token);
    expect(beyond.statusCode).toBe(201);
    expect(beyond.json()).toMatchObject({
      recently_alerted: true,
      deliveries: [{ contact_name: 'Ana', status: 'failed', withheld: true }],
    });
    // A replayed key is answered even now: it sends nothing.
    expect((await postAlert(t.app, owner.token, undefined, key)).statusCode).toBe(200);
    // Test SMS and other tokens count separately.
    const other = await ownerWithContacts(t.app, { contacts: [['Ana', '+351971000002']] });
    expect((await postAlert(t.app, other.token)).statusCode).toBe(201);
    await t.app.dispatcher.drain();
  });

  it('allows 5 test SMS an hour per token; a replayed key is free', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['TEST Ana', '+351971000003']] });
    const first = randomUUID();
    for (let i = 0; i < 5; i++) {
      const key = i === 0 ? first : randomUUID();
      expect((await postAlert(t.app, owner.token, { mode: 'test', location: null }, key)).statusCode).toBe(201);
    }
    const limited = await postAlert(t.app, owner.token, { mode: 'test', location: null });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3000);
    expect(limited.json()).toEqual({
      detail: `Request was throttled. Try again in ${limited.headers['retry-after']} seconds.`,
      code: 'throttled',
      retry_after: Number(limited.headers['retry-after']),
    });
    expect((await postAlert(t.app, owner.token, { mode: 'test', location: null }, first)).statusCode).toBe(200);
    expect((await postAlert(t.app, owner.token, { mode: 'real', location: null })).statusCode).toBe(201);
    await t.app.dispatcher.drain();
  });

  it('allows 60 page reads a minute per token', async () => {
    const owner = await ownerWithContacts(t.app);
    const url = `/api/emergency/public/${owner.token}/`;
    for (let i = 0; i < 60; i++) expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(200);
    const limited = await t.app.inject({ method: 'GET', url });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });
});
