import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { LISBON, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, createUser, dbLabel, type TestApp } from './helper.js';
import { getLive, postResolve, sendRealAlert } from './live-fixtures.js';

const TILES = 'http://127.0.0.1:9/tiles/{z}/{x}/{y}.png';

describe(`what contacts see: display name and time zone on /me (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ MAP_TILE_URL: TILES, MAP_ATTRIBUTION: 'Test tiles' });
  });
  afterAll(async () => {
    await t.close();
  });

  const patch = (headers: Record<string, string>, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PATCH', url: '/api/users/me/', headers, payload });
  const me = async (headers: Record<string, string>) =>
    (await t.app.inject({ method: 'GET', url: '/api/users/me/', headers })).json();
  const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone).map((sms) => sms.body);

  it('starts with neither, stores both cleaned, and clears the name with null or an empty string', async () => {
    const { headers } = await createUser(t.app);
    expect(await me(headers)).toMatchObject({ display_name: null, time_zone: null });

    const res = await patch(headers, { display_name: '  Zé   Açoriano ', time_zone: 'Europe/Lisbon' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ display_name: 'Zé Açoriano', time_zone: 'Europe/Lisbon' });
    expect(await me(headers)).toMatchObject({ display_name: 'Zé Açoriano', time_zone: 'Europe/Lisbon' });

    expect((await patch(headers, { display_name: "Ana-Rita O'Neil Jr." })).json().display_name).toBe(
      "Ana-Rita O'Neil Jr.",
    );
    expect((await patch(headers, { display_name: '' })).json().display_name).toBeNull();
    await patch(headers, { display_name: 'Maria' });
    expect((await patch(headers, { display_name: null, time_zone: null })).json()).toMatchObject({
      display_name: null,
      time_zone: null,
    });
  });

  it('refuses bad names and unknown time zones with a 400 naming the field, and keeps what was stored', async () => {
    const { headers } = await createUser(t.app);
    await patch(headers, { display_name: 'Maria', time_zone: 'Europe/Lisbon' });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ display_name: '12345' }, 'display_name', /letters, spaces/],
      [{ display_name: 'M' }, 'display_name', /2 to 40 characters/],
      [{ display_name: 'M'.repeat(41) }, 'display_name', /2 to 40 characters/],
      [{ display_name: 'Maria 2' }, 'display_name', /letters/],
      [{ display_name: 'https://evil.example' }, 'display_name', /./],
      [{ display_name: 'www.evil' }, 'display_name', /web address/],
      [{ display_name: 'maria.silva' }, 'display_name', /web address/],
      [{ display_name: 42 }, 'display_name', /Not a valid string/],
      [
        { time_zone: 'Mars/Olympus_Mons' },
        'time_zone',
        /"Mars\/Olympus_Mons" is not a known time zone.*Europe\/Lisbon/,
      ],
      [{ time_zone: '+01:00' }, 'time_zone', /not a known time zone/],
      [{ time_zone: '' }, 'time_zone', /not a known time zone/],
      [{ time_zone: 3 }, 'time_zone', /Not a valid string/],
      [{ time_zone: `Europe/${'x'.repeat(100)}` }, 'time_zone', /not a known time zone/],
    ];
    for (const [body, field, message] of cases) {
      const res = await patch(headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()[field]?.[0], JSON.stringify(body)).toMatch(message);
    }
    const both = await patch(headers, { display_name: '007', time_zone: 'Nowhere/Land' });
    expect(Object.keys(both.json())).toEqual(expect.arrayContaining(['display_name', 'time_zone']));
    expect(await me(headers)).toMatchObject({ display_name: 'Maria', time_zone: 'Europe/Lisbon' });
  });

  it('names the owner by the display name in the alert, the test and the all-clear SMS, with times in their zone', async () => {
    const owner = await ownerWithContacts(t.app, {
      language: 'en',
      contacts: [
        ['Ana Silva', '+351921100001'],
        ['TEST Rui', '+351921100002'],
      ],
    });
    await patch(owner.headers, { display_name: 'Zé Açoriano', time_zone: 'America/New_York' });

    const page = (await t.app.inject({ method: 'GET', url: `/api/emergency/public/${owner.token}/` })).json();
    expect(page).toMatchObject({ owner_name: 'Zé Açoriano', time_zone: 'America/New_York' });
    // Short enough for one UCS-2 part: the accents stay.
    expect(page.messages.real).toBe('EMERGENCY: Zé Açoriano needs help now. Location unavailable.');

    const alert = await sendRealAlert(t.app, owner.token);
    const test = await postAlert(t.app, owner.token, { mode: 'test', location: LISBON });
    expect(test.statusCode, test.body).toBe(201);
    await t.app.dispatcher.drain();
    // The fix's time as New York reads it (09:03 or 10:03 with daylight saving); ç (not in GSM-7)
    // goes when that keeps the SMS shorter, é stays.
    const newYork = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'America/New_York',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(LISBON.captured_at));
    expect(['09:03', '10:03']).toContain(newYork);
    const [real] = smsTo('+351921100001');
    expect(real).toContain('EMERGENCY: Zé Acoriano needs help now.');
    expect(real).toContain(`(accuracy 12 m, ${newYork})`);
    expect(real).toContain(`/a/${alert.public_id}`);
    expect(real).not.toContain(owner.user.username);
    expect(smsTo('+351921100002').find((body) => body.startsWith('TEST'))).toMatch(
      new RegExp(`^TEST from Alerta: Zé Acoriano is testing alerts\\..*${newYork}\\)$`),
    );

    const live = (await getLive(t.app, alert.public_id)).json();
    expect(live).toMatchObject({
      owner_name: 'Zé Açoriano',
      map: { tile_url: TILES, attribution: 'Test tiles', attribution_url: 'https://www.openstreetmap.org/copyright' },
    });

    expect((await postResolve(t.app, owner.token, alert.id, { notify: true })).statusCode).toBe(200);
    await t.app.dispatcher.drain();
    expect(smsTo('+351921100001')).toContain('Alerta: Zé Açoriano is safe now. The alert is over.');
  });

  it('falls back to the username and to UTC without them', async () => {
    const owner = await ownerWithContacts(t.app, { language: 'pt', contacts: [['Ana Silva', '+351921100003']] });
    const alert = await sendRealAlert(t.app, owner.token);
    await t.app.dispatcher.drain();
    const [real] = smsTo('+351921100003');
    expect(real).toContain(`EMERGENCIA: ${owner.user.username} precisa de ajuda agora.`);
    expect(real).toContain('14:03 UTC');
    expect((await getLive(t.app, alert.public_id)).json().owner_name).toBe(owner.user.username);
  });

  it('lets the map tiles, and only their origin, through the CSP', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    const imgSrc = String(res.headers['content-security-policy'])
      .split(';')
      .find((d) => d.trim().startsWith('img-src'));
    expect(imgSrc?.trim()).toBe("img-src 'self' data: blob: http://127.0.0.1:9");
  });
});

describe('map tile settings', () => {
  it('defaults to OpenStreetMap with its credit', () => {
    const config = loadConfig({});
    expect(config.MAP_TILE_URL).toBe('https://tile.openstreetmap.org/{z}/{x}/{y}.png');
    expect(config.MAP_ATTRIBUTION).toBe('© OpenStreetMap contributors');
  });

  it('refuses a tile URL without its placeholders or with several hosts', () => {
    for (const bad of [
      'https://tiles.example/{z}/{x}.png',
      'https://{s}.tile.example/{z}/{x}/{y}.png',
      'ftp://tiles.example/{z}/{x}/{y}.png',
    ]) {
      expect(() => loadConfig({ MAP_TILE_URL: bad }), bad).toThrow(ConfigError);
    }
  });
});
