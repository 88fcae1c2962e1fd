import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAMS_PER_CLIENT } from '../../server/features/live/events-routes.js';
import { call, type LimitedServer, ownerWithProof, sendAlert, startLimitedServer, until } from './dos-process.js';
import { dbLabel } from './helper.js';

// One paying user follows their own alert on 2,000 live streams (the per-alert cap raised to
// let them all in) and posts a position every half second: each change is read once and
// written to every stream, so another owner's proven alert still goes out within a second.

const STREAMS = 2000;
const POSITIONS = 12;
const POSITION_EVERY_MS = 500;

/** A follower that reads everything and keeps only the tail of what it read (kept light: 2,000 run here). */
interface Follower {
  socket: Socket;
  /** Whether a `live` event has come. */
  live: boolean;
  tail: Buffer;
  /** The answer's status, once its head is in. */
  status: Promise<number>;
}

function follow(port: number, publicId: string, from: string): Follower {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  let answered: (status: number) => void = () => {};
  const status = new Promise<number>((resolve) => (answered = resolve));
  const follower: Follower = { socket, live: false, tail: Buffer.alloc(0), status };
  socket.on('error', () => answered(0));
  socket.on('close', () => answered(0));
  socket.on('data', (chunk: Buffer) => {
    follower.tail = Buffer.concat([follower.tail, chunk]).subarray(-4096);
    follower.live ||= follower.tail.includes('event: live');
    const code = /^HTTP\/1\.1 (\d{3}) /.exec(follower.tail.toString('latin1', 0, 16))?.[1];
    if (code) answered(Number(code));
  });
  socket.write(`GET /api/live/${publicId}/events HTTP/1.1\r\nHost: alerta.test\r\nAccept: text/event-stream\r\n\r\n`);
  return follower;
}

/**
 * Opens the followers a hundred at a time, as a crowd arrives: a burst of thousands at once
 * would be shed (503) while the process takes them in, and is opened again.
 */
async function openAll(port: number, publicId: string, count: number): Promise<Follower[]> {
  const open: Follower[] = [];
  for (let start = 0; start < count; start += 100) {
    let pending = Array.from({ length: Math.min(100, count - start) }, (_, i) => start + i);
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      if (attempt > 5) throw new Error(`${pending.length} streams refused five times`);
      const tried = pending.map((i) => ({ i, follower: follow(port, publicId, addressOf(i)) }));
      const statuses = await Promise.all(tried.map(({ follower }) => follower.status));
      pending = [];
      tried.forEach(({ i, follower }, n) => {
        if (statuses[n] === 200) open.push(follower);
        else {
          follower.socket.destroy();
          pending.push(i);
        }
      });
    }
  }
  return open;
}

/** Local address of the i-th follower: STREAMS_PER_CLIENT each, as many addresses as that takes. */
const addressOf = (i: number) => {
  const n = Math.floor(i / STREAMS_PER_CLIENT);
  return `127.1.${Math.floor(n / 250)}.${1 + (n % 250)}`;
};

describe(`2,000 live streams on one alert (${dbLabel})`, () => {
  let server: LimitedServer;
  const followers: Follower[] = [];
  beforeAll(async () => {
    server = await startLimitedServer({ LIVE_EXTRA_STREAMS: String(STREAMS) });
  }, 60_000);
  afterAll(async () => {
    for (const f of followers) f.socket.destroy();
    await server?.stop();
  });

  it("with a position every half second, another owner's proven alert answers 201 within a second", async () => {
    const phone = (n: number) => ({ name: ['Ana', 'Rui'][n - 1] as string, phone_number: `+35191200050${n}` });
    const streamer = await ownerWithProof(server.port, [phone(1)]);
    const other = await ownerWithProof(server.port, [phone(2)]);
    const sent = await sendAlert(server.port, streamer.token);
    expect(sent.status, sent.body).toBe(201);
    const { id, public_id: publicId } = JSON.parse(sent.body) as { id: string; public_id: string };

    followers.push(...(await openAll(server.port, publicId, STREAMS)));
    await until('the first event on every stream', () => followers.every((f) => f.live), 30_000);

    const took: number[] = [];
    let lastLatitude = 0;
    for (let n = 1; n <= POSITIONS; n += 1) {
      const next = Date.now() + POSITION_EVERY_MS;
      lastLatitude = 38.7 + n / 1000;
      const position = call(server.port, 'POST', `/api/emergency/public/${streamer.token}/alerts/${id}/location/`, {
        from: `127.2.0.${n}`,
        body: { latitude: lastLatitude, longitude: -9.14, accuracy: 5, captured_at: new Date().toISOString() },
      });
      if (n % 4 === 0) {
        const started = Date.now();
        const alert = await sendAlert(server.port, other.token, { deviceKey: other.deviceKey });
        took.push(Date.now() - started);
        expect(alert.status, alert.body).toBe(201);
      }
      expect((await position).status).toBe(201);
      await until('the next half second', () => Date.now() >= next);
    }
    expect(took).toHaveLength(POSITIONS / 4);
    for (const ms of took) expect(ms).toBeLessThan(1000);

    // Every follower got the last position, and none was dropped.
    const marker = `"latitude":${lastLatitude}`;
    await until('the last position everywhere', () => followers.every((f) => f.tail.includes(marker)), 20_000);
    expect(followers.filter((f) => f.socket.destroyed)).toEqual([]);
    expect(server.child.exitCode).toBeNull();
    expect((await call(server.port, 'GET', '/api/health')).status).toBe(200);
  }, 90_000);
});
