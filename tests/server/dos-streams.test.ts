import { promisify } from 'node:util';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { STREAMS_PER_CLIENT } from '../../server/features/live/events-routes.js';
import { ownerWithContacts } from './alerts-fixtures.js';
import { type Held, hold, until } from './dos-process.js';
import { dbLabel, suiteApp, type TestApp } from './helper.js';
import { moved, postAck, sendRealAlert } from './live-fixtures.js';
import { watchStatements } from './statements-seen.js';

// Live event streams on one alert in one process: capped, fed by one read per change, and a
// client that stops reading is dropped instead of being buffered for.

/** A live stream opened from `from` (127.x.y.z) on a raw connection. */
const openStream = (port: number, publicId: string, from: string) =>
  hold(
    port,
    `GET /api/live/${publicId}/events HTTP/1.1\r\nHost: alerta.test\r\nAccept: text/event-stream\r\n\r\n`,
    from,
  );

/** The status and, once whole, the JSON body of the answer on a raw connection. */
function answerOf(held: Held): { status: number; body: Record<string, unknown> | null; headers: string } {
  const text = held.received();
  const split = text.indexOf('\r\n\r\n');
  const status = Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);
  const headers = split < 0 ? '' : text.slice(0, split);
  const length = Number(headers.match(/content-length: (\d+)/i)?.[1] ?? -1);
  const rest = split < 0 ? '' : text.slice(split + 4);
  return { status, headers, body: length >= 0 && rest.length >= length ? JSON.parse(rest) : null };
}

/** Opens `count` streams, STREAMS_PER_CLIENT from each address 127.0.<net>.x, and waits for their first event. */
async function openMany(port: number, publicId: string, count: number, net: number): Promise<Held[]> {
  const streams: Held[] = [];
  for (let i = 0; i < count; i += 1) {
    streams.push(await openStream(port, publicId, `127.0.${net}.${1 + Math.floor(i / STREAMS_PER_CLIENT)}`));
  }
  await until('every stream opened', () => streams.every((s) => s.received().includes('event: live')));
  return streams;
}

const listen = async (t: TestApp) => Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);

describe(`live streams of one alert: capped (${dbLabel})`, () => {
  const t = suiteApp();
  let port = 0;
  beforeAll(async () => {
    port = await listen(t);
  });

  it('takes one stream per contact, one for the owner and LIVE_EXTRA_STREAMS (5) more; the next gets 429 too_many_streams until one closes', async () => {
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['Ana', '+351912000201'],
        ['Rui', '+351912000202'],
      ],
    });
    const alert = await sendRealAlert(t.app, owner.token);
    const cap = 2 + 1 + t.config.LIVE_EXTRA_STREAMS;
    const open = await openMany(port, alert.public_id, cap, 4);

    const refused = await openStream(port, alert.public_id, '127.0.4.9');
    await until('an answer', () => answerOf(refused).status !== 0);
    expect(answerOf(refused).status).toBe(429);
    await until('its body', () => answerOf(refused).body !== null);
    const answer = answerOf(refused);
    expect(answer.headers).toMatch(/\r\nretry-after: \d+\r\n/i);
    expect(answer.body).toEqual({ detail: expect.stringMatching(/live followers/), code: 'too_many_streams' });

    // Another alert is followed as ever from that address.
    const other = await sendRealAlert(t.app, owner.token);
    const elsewhere = await openStream(port, other.public_id, '127.0.4.9');
    await until('the other stream', () => elsewhere.received().includes('event: live'));

    // A follower who leaves frees a place.
    open[0]?.socket.destroy();
    let attempt = 0;
    let again: Held | undefined;
    await until('a freed place', async () => {
      again?.socket.destroy();
      attempt += 1;
      again = await openStream(port, alert.public_id, `127.0.5.${attempt}`);
      await until('an answer', () => answerOf(again as Held).status !== 0);
      return answerOf(again).status === 200;
    });
    for (const s of [...open, refused, elsewhere, again]) s?.socket.destroy();
  });
});

describe(`live streams of one alert: one read per change (${dbLabel})`, () => {
  const t = suiteApp({ LIVE_EXTRA_STREAMS: '20' });
  let port = 0;
  beforeAll(async () => {
    port = await listen(t);
  });

  it('reads and serialises a change once and writes the same event to all 20 streams', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351912000301']] });
    const alert = await sendRealAlert(t.app, owner.token);
    // The streams' own re-reads and heartbeats run on a fake clock: only the change is read.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const streams = await openMany(port, alert.public_id, 20, 6);

    const watch = watchStatements();
    const position = moved(900, t.clock.now());
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${owner.token}/alerts/${alert.id}/location/`,
      payload: position,
    });
    expect(res.statusCode, res.body).toBe(201);
    const marker = `"latitude":${position.latitude}`;
    await until('the position on every stream', () => streams.every((s) => s.received().includes(marker)));
    watch.stop();

    // The view's responders are read once for all 20 streams (a stream each read them before).
    const responderReads = watch.seen.filter((s) => /^\s*select\b[\s\S]*\bfrom "alert_responders"/i.test(s.sql));
    expect(responderReads).toHaveLength(1);
    const lastEvents = streams.map((s) => s.received().slice(s.received().lastIndexOf('event: live')));
    expect(new Set(lastEvents).size).toBe(1);

    for (const s of streams) s.socket.destroy();
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(0), { timeout: 5000 });
    vi.useRealTimers();
  });
});

describe(`live streams of one alert: a client that stops reading (${dbLabel})`, () => {
  const t = suiteApp();
  let port = 0;
  beforeAll(async () => {
    port = await listen(t);
  });

  it('is dropped once its events back up, while a reading follower keeps getting every change', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351912000401']] });
    const alert = await sendRealAlert(t.app, owner.token);
    // A page as large as a live page gets: 50 people on the way, each a 40-character name.
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
    for (let i = 0; i < 50; i += 1) {
      const res = await postAck(t.app, alert.public_id, { name: family.repeat(40) }, `10.77.${Math.floor(i / 3)}.1`);
      expect(res.statusCode, res.body).toBe(201);
    }
    const reader = await openStream(port, alert.public_id, '127.0.7.1');
    const stalled = await openStream(port, alert.public_id, '127.0.7.2');
    await until('both streams', () => [reader, stalled].every((s) => s.received().includes('event: live')));
    stalled.socket.pause();
    const connections = () => promisify(t.app.server.getConnections.bind(t.app.server))();
    expect(await connections()).toBe(2);

    const post = async (i: number) => {
      t.clock.advance(1000);
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/emergency/public/${owner.token}/alerts/${alert.id}/location/`,
        payload: moved(i, t.clock.now()),
        remoteAddress: `10.78.${Math.floor(i / 20)}.1`,
      });
      expect(res.statusCode, res.body).toBe(201);
    };
    // Each position is a new event of ~50 KB: the socket's buffers fill within a few megabytes.
    let posted = 0;
    while ((await connections()) === 2 && posted < 600) {
      posted += 1;
      await post(posted);
    }
    expect(await connections()).toBe(1);

    const last = moved(5000, t.clock.now() + 1000);
    await post(5000);
    await until('the reader got the last change', () => reader.received().includes(`"latitude":${last.latitude}`));
    stalled.socket.resume();
    await stalled.closed;
    expect(stalled.received()).not.toContain(`"latitude":${last.latitude}`);
    expect(reader.isClosed()).toBe(false);
    reader.socket.destroy();
  }, 60_000);
});
