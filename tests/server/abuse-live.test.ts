import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAMS_PER_CLIENT } from '../../server/features/live/events-routes.js';
import { ownerWithContacts } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, suiteApp, type TestApp } from './helper.js';
import { moved, ownerProofOf, sendRealAlert } from './live-fixtures.js';

/**
 * Live pages against strangers: whoever holds the live link (or the emergency link) from
 * another address cannot make the owner's own calls 429, cannot take a real contact's
 * "on my way", and cannot show hostile names to everyone following.
 */
const REDIS_URL = process.env.TEST_REDIS_URL;
/** Limits counted in this process and, where a Redis is given (.ci/run sets TEST_REDIS_URL), in Redis. */
const stores: [string, Record<string, string>][] = [
  ['limits in process', {}],
  ...(REDIS_URL ? [['limits in Redis', { REDIS_URL }] as [string, Record<string, string>]] : []),
];

describe.each(stores)(`live pages against strangers (${dbLabel}, %s)`, (_store, env) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp(env);
  });
  afterAll(async () => {
    await t.close();
  });

  // Addresses of their own per run: counters in Redis outlive a run by their window.
  const OWNER = `198.51.${randomInt(256)}.${randomInt(1, 255)}`;
  const STRANGER = `203.0.${randomInt(256)}.${randomInt(1, 255)}`;
  const call = (method: 'GET' | 'POST', url: string, remoteAddress: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      remoteAddress,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  const ack = (publicId: string, body: Record<string, unknown>, ip: string) =>
    call('POST', `/api/live/${publicId}/ack/`, ip, body);
  /**
   * Sends until throttled, at most twice `limit` (while Redis is slow a request may be counted
   * in this process instead); answers the last status.
   */
  async function untilThrottled(limit: number, send: () => Promise<{ statusCode: number }>) {
    let last = 0;
    for (let i = 0; i < 2 * limit + 2 && last !== 429; i++) last = (await send()).statusCode;
    return last;
  }
  /** Each contact's key, from the live link in the SMS they got. */
  async function contactKeys(phones: string[]) {
    await t.app.dispatcher.drain();
    return phones.map((phone) => {
      const body = t.app.outbox.sms.find((sms) => sms.to === phone)?.body ?? '';
      const key = /\/a\/[\w-]+\?c=([\w-]+)/.exec(body)?.[1];
      if (!key) throw new Error(`no contact link in ${body}`);
      return key;
    });
  }

  it("a stranger who uses up every limit of the links from their address leaves the owner's calls and other readers alone", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351961000001']] });
    const alert = await sendRealAlert(t.app, owner.token);
    const sender = `/api/emergency/public/${owner.token}/alerts/${alert.id}`;
    const live = `/api/live/${alert.public_id}`;

    // The live link: the page's data and "on my way".
    expect(await untilThrottled(120, () => call('GET', `${live}/`, STRANGER))).toBe(429);
    expect(await untilThrottled(5, () => ack(alert.public_id, {}, STRANGER))).toBe(429);
    // The emergency link, leaked: bad positions and bad "I'm safe" (nothing changes), polling.
    expect(await untilThrottled(30, () => call('POST', `${sender}/location/`, STRANGER, { latitude: 91 }))).toBe(429);
    expect(await untilThrottled(10, () => call('POST', `${sender}/resolve/`, STRANGER, { notify: 'yes' }))).toBe(429);
    expect(await untilThrottled(120, () => call('GET', `${sender}/live/`, STRANGER))).toBe(429);
    expect(await untilThrottled(60, () => call('GET', `${sender}/`, STRANGER))).toBe(429);

    // The owner, from their own address, right after.
    const position = await call('POST', `${sender}/location/`, OWNER, moved(50, t.clock.now()));
    expect(position.statusCode, position.body).toBe(201);
    expect((await call('GET', `${sender}/live/`, OWNER)).statusCode).toBe(200);
    expect((await call('GET', `${sender}/`, OWNER)).statusCode).toBe(200);
    // Another address still follows the alert.
    const reader = await call('GET', `${live}/`, '192.0.2.44');
    expect(reader.statusCode).toBe(200);
    expect(reader.json()).toMatchObject({ state: 'active' });
    // "I'm safe" is the owner's alone: their page sends its device key.
    const safe = await t.app.inject({
      method: 'POST',
      url: `${sender}/resolve/`,
      remoteAddress: OWNER,
      headers: await ownerProofOf(t.app, owner.token),
      payload: { notify: false },
    });
    expect(safe.statusCode, safe.body).toBe(200);
    expect(safe.json()).toMatchObject({ state: 'resolved' });
  });

  it("strangers fill their slots, from one address at most three; a real contact's own link still answers, once", async () => {
    const phones = ['+351961000011', '+351961000012'];
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['Ana Silva', phones[0] as string],
        ['Rui Costa', phones[1] as string],
      ],
    });
    const alert = await sendRealAlert(t.app, owner.token);
    const [ana, rui] = await contactKeys(phones);
    expect(ana).not.toBe(rui);

    // One address: three names, then refused.
    for (let i = 0; i < 3; i++)
      expect((await ack(alert.public_id, { name: `Bot ${i}` }, STRANGER)).statusCode).toBe(201);
    const fourth = await ack(alert.public_id, { name: 'Bot 3' }, STRANGER);
    expect(fourth.statusCode).toBe(409);
    expect(fourth.json()).toMatchObject({ code: 'too_many_responders', detail: expect.stringMatching(/one address/) });
    // Many addresses: the 50 slots for answers without a contact key fill up.
    let address = 0;
    for (let filled = 3; filled < 50; filled++) {
      const ip = `198.18.0.${Math.floor(address++ / 3) + 1}`;
      expect((await ack(alert.public_id, { name: `Bot ${filled}` }, ip)).statusCode).toBe(201);
    }
    const full = await ack(alert.public_id, { name: 'Late' }, '198.18.1.1');
    expect(full.statusCode).toBe(409);
    expect(full.json()).toMatchObject({ code: 'too_many_responders' });
    // A made-up key is no key.
    expect((await ack(alert.public_id, { contact_key: 'AAAAAAAAAAA' }, '198.18.1.2')).statusCode).toBe(409);
    // The stranger's address is out of tries too (a café's shared address).
    expect(await untilThrottled(5, () => ack(alert.public_id, {}, STRANGER))).toBe(429);

    // Ana, from that same address, with her own link: accepted, named after her contact.
    const first = await ack(alert.public_id, { contact_key: ana }, STRANGER);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ name: 'Ana Silva', contact: true });
    // A second press renames her answer and adds nothing.
    const again = await ack(alert.public_id, { contact_key: ana, name: 'Ana (filha)' }, OWNER);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ name: 'Ana (filha)', created_at: first.json().created_at, contact: true });
    // Rui types his own name, a little later.
    t.clock.advance(1000);
    const typed = await ack(alert.public_id, { contact_key: rui, name: ' Rui C. ' }, '192.0.2.80');
    expect(typed.statusCode).toBe(201);
    expect(typed.json()).toMatchObject({ name: 'Rui C.', contact: true });

    const view = (await call('GET', `/api/live/${alert.public_id}/`, '192.0.2.81')).json();
    expect(view.responders).toHaveLength(52);
    expect(view.responders.filter((r: { contact: boolean }) => r.contact)).toEqual([
      { name: 'Ana (filha)', created_at: first.json().created_at, contact: true, channel: 'link' },
      { name: 'Rui C.', created_at: typed.json().created_at, contact: true, channel: 'link' },
    ]);
    const senderView = await call('GET', `/api/emergency/public/${owner.token}/alerts/${alert.id}/live/`, OWNER);
    expect(senderView.json().responders.filter((r: { contact: boolean }) => r.contact)).toHaveLength(2);
    // Another alert's key is no key here.
    const other = await sendRealAlert(t.app, owner.token);
    expect((await ack(other.public_id, { contact_key: ana }, '192.0.2.82')).json()).toMatchObject({ contact: false });
  });

  it('counts one IPv6 /64 as one address: a stranger changing the last 64 bits gets no more names or tries', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana Silva', '+351961000031']] });
    const alert = await sendRealAlert(t.app, owner.token);
    // One /64 of their own per run (counters in Redis outlive a run by their window).
    const net = `2001:db8:${randomInt(65536).toString(16)}:${randomInt(65536).toString(16)}`;
    const from = (i: number) => `${net}:${randomInt(65536).toString(16)}::${i + 1}`;
    for (let i = 0; i < 3; i++)
      expect((await ack(alert.public_id, { name: `Bot ${i}` }, from(i))).statusCode).toBe(201);
    const fourth = await ack(alert.public_id, { name: 'Bot 3' }, from(3));
    expect(fourth.statusCode).toBe(409);
    expect(fourth.json()).toMatchObject({ code: 'too_many_responders' });
    expect(await untilThrottled(5, () => ack(alert.public_id, {}, from(randomInt(1000))))).toBe(429);
    // Another network is another address.
    const other = await ack(alert.public_id, { name: 'Vizinho' }, `2001:db8:ffff:${randomInt(65536).toString(16)}::1`);
    expect(other.statusCode, other.body).toBe(201);
  });

  it('cleans direction controls, invisible characters and mark floods from names, and refuses what is left unreadable', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351961000021']] });
    const alert = await sendRealAlert(t.app, owner.token);
    let n = 0;
    // Each from its own address: the per-address cap is not what is tested here.
    const named = (name: string) => ack(alert.public_id, { name }, `192.0.2.${++n}`);

    const bidi = await named('\u202Enhoj\u202C \u2066Ana\u2069\u200F');
    expect(bidi.statusCode).toBe(201);
    expect(bidi.json().name).toBe('nhoj Ana');

    const invisible = await named('\u200B'.repeat(200));
    expect(invisible.statusCode).toBe(400);
    expect(invisible.json()).toMatchObject({
      code: 'invalid_name',
      name: ['The name has no visible characters: type a name or leave it empty.'],
    });
    expect((await named(`\u202E${'\u2060'.repeat(30)}`)).statusCode).toBe(400);

    const zalgo = await named(`Z${'\u0301\u0302\u0303\u0304'.repeat(12)}oe`);
    expect(zalgo.statusCode).toBe(201);
    const stored = zalgo.json().name as string;
    expect(stored.normalize('NFD').replace(/\p{M}/gu, '')).toBe('Zoe');
    expect(stored.normalize('NFD').match(/\p{M}/gu)).toHaveLength(3);

    const tooLong = await named('é'.repeat(41));
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toMatchObject({
      code: 'max_length',
      name: ['Ensure this field has no more than 40 characters.'],
    });
    // Visible characters, not code units: 40 decomposed accents and 40 emoji families fit.
    const decomposed = await named('e\u0301'.repeat(40));
    expect(decomposed.statusCode).toBe(201);
    expect(decomposed.json().name).toBe('é'.repeat(40));
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
    expect((await named(family.repeat(40))).json().name).toBe(family.repeat(40));
    const friendly = await named(`Mãe José ${family}`);
    expect(friendly.statusCode).toBe(201);
    expect(friendly.json().name).toBe(`Mãe José ${family}`);

    const names = (await call('GET', `/api/live/${alert.public_id}/`, '192.0.2.200')).json().responders;
    for (const { name } of names) expect(name).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B\u200E\u200F\u061C]/u);
  });
});

describe(`live event streams against strangers (${dbLabel})`, () => {
  const t = suiteApp();

  it('keeps at most 5 streams open per address and alert; one closed frees its place', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana Silva', '+351961000041']] });
    const alert = await sendRealAlert(t.app, owner.token);
    const controllers: AbortController[] = [];
    const open = async (headers: Record<string, string> = {}) => {
      const controller = new AbortController();
      controllers.push(controller);
      const res = await fetch(`${base}/api/live/${alert.public_id}/events`, { signal: controller.signal, headers });
      return { res, controller };
    };
    try {
      const first = await open();
      expect(first.res.status).toBe(200);
      for (let i = 1; i < STREAMS_PER_CLIENT; i++) expect((await open()).res.status).toBe(200);
      const refused = await open();
      expect(refused.res.status).toBe(429);
      expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);

      // Closing one frees its place once the server has seen it go.
      first.controller.abort();
      let again = 0;
      for (let tries = 0; tries < 20 && again !== 200; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        again = (await open()).res.status;
      }
      expect(again).toBe(200);
    } finally {
      for (const controller of controllers) controller.abort();
    }
  });
});
