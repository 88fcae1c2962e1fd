import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerWithContacts } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { getLive, moved, postAck, postPosition, postResolve, sendRealAlert } from './live-fixtures.js';

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

describe(`live page expiry, history deletion, limits and the event stream (${dbLabel})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('shows nothing 24 hours after the alert was resolved', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351922000001']] });
    const alert = await sendRealAlert(t.app, owner.token);
    await postAck(t.app, alert.public_id, { name: 'Rui' });
    t.clock.advance(2 * HOUR);
    await postResolve(t.app, owner.token, alert.id, { notify: false });
    t.clock.advance(DAY - 1000);
    expect((await getLive(t.app, alert.public_id)).json()).toMatchObject({ state: 'resolved', responders: [{}] });
    t.clock.advance(2000);
    const ended = await getLive(t.app, alert.public_id);
    expect(ended.statusCode).toBe(200);
    expect(ended.json()).toEqual({ state: 'ended' });
  });

  it('shows nothing 24 hours after the last update of an alert never resolved', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351922000002']] });
    const alert = await sendRealAlert(t.app, owner.token);
    t.clock.advance(30 * 60_000);
    expect((await postPosition(t.app, owner.token, alert.id, moved(80, t.clock.now()))).statusCode).toBe(201);
    t.clock.advance(DAY - 1000);
    expect((await getLive(t.app, alert.public_id)).json()).toMatchObject({ state: 'active', trail: [{}, {}] });
    t.clock.advance(2000);
    expect((await getLive(t.app, alert.public_id)).json()).toEqual({ state: 'ended' });
    expect((await postAck(t.app, alert.public_id, {})).statusCode).toBe(409);
  });

  it('deletes live positions and responders after 30 days', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351922000003']] });
    const alert = await sendRealAlert(t.app, owner.token);
    await postPosition(t.app, owner.token, alert.id, moved(60, t.clock.now()));
    await postAck(t.app, alert.public_id, { name: 'Rui' });
    const count = async () => {
      const positions = await t.app.db
        .selectFrom('alert_locations')
        .select('id')
        .where('alert_id', '=', alert.id)
        .execute();
      const responders = await t.app.db
        .selectFrom('alert_responders')
        .select('id')
        .where('alert_id', '=', alert.id)
        .execute();
      return positions.length + responders.length;
    };
    t.clock.advance(29 * DAY);
    await t.app.purgeLiveHistory();
    expect(await count()).toBe(2);
    t.clock.advance(2 * DAY);
    expect(await t.app.purgeLiveHistory()).toBeGreaterThanOrEqual(2);
    expect(await count()).toBe(0);
  });

  it('limits position updates per token and address, and acknowledgements per address', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351922000004']] });
    const alert = await sendRealAlert(t.app, owner.token);
    const now = t.clock.now();
    const codes: number[] = [];
    for (let i = 0; i < 31; i++) {
      codes.push((await postPosition(t.app, owner.token, alert.id, moved(i * 60, now + i * 1000))).statusCode);
    }
    expect(codes.slice(0, 30).every((c) => c === 201)).toBe(true);
    expect(codes[30]).toBe(429);

    const acks: number[] = [];
    for (let i = 0; i < 6; i++) acks.push((await postAck(t.app, alert.public_id, {}, '10.0.0.9')).statusCode);
    // Three names from one address; the tries after that are counted too.
    expect(acks).toEqual([201, 201, 201, 409, 409, 429]);
    // Another contact's phone still gets through.
    expect((await postAck(t.app, alert.public_id, {}, '10.0.0.10')).statusCode).toBe(201);
  });

  it('pushes positions, responders and the resolution to an open event stream within a second', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351922000005']] });
    const alert = await sendRealAlert(t.app, owner.token);
    const controller = new AbortController();
    const res = await fetch(`${base}/api/live/${alert.public_id}/events`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    /** The next `live` event's data, within `ms`. */
    async function nextEvent(ms = 1000): Promise<Record<string, unknown>> {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = buffer.match(/event: live\ndata: (.*)\n\n/);
        if (match?.index !== undefined) {
          buffer = buffer.slice(match.index + match[0].length);
          return JSON.parse(match[1] as string);
        }
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no event in time');
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no event in time')), left)),
        ]);
        if (chunk.done) throw new Error('stream ended');
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    }
    expect(await nextEvent()).toMatchObject({ state: 'active', owner_name: owner.user.username });
    await postPosition(t.app, owner.token, alert.id, moved(300, t.clock.now()));
    const moving = (await nextEvent()) as { position: { latitude: number } };
    expect(moving.position.latitude).toBeCloseTo(moved(300, 0).latitude, 6);
    await postAck(t.app, alert.public_id, { name: 'Rui' }, '10.0.1.1');
    expect(await nextEvent()).toMatchObject({ responders: [{ name: 'Rui' }] });
    await postResolve(t.app, owner.token, alert.id, { notify: false });
    expect(await nextEvent()).toMatchObject({ state: 'resolved', trail: [] });
    controller.abort();

    expect((await fetch(`${base}/api/live/nope-not-a-real-public-id/events`)).status).toBe(404);
  });
});
