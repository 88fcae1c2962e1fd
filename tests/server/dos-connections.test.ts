import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { connectionCaps, openFileLimit } from '../../server/plugins/connections.js';
import {
  call,
  type Held,
  hold,
  type LimitedServer,
  ownerWithProof,
  sendAlert,
  startLimitedServer,
  until,
} from './dos-process.js';
import { dbLabel } from './helper.js';

// The server as `npm start` runs it, with 1,024 files (`ulimit -n 1024`): connections that send
// half a request line and wait must neither stop it (EMFILE) nor keep an owner's alert out.

const FILE_LIMIT = 1024;
const FLOOD = 1100;
const caps = connectionCaps(loadConfig({}), FILE_LIMIT);
/** Half a request line: no token, no secret path, nothing a limit could count. */
const HALF_LINE = 'GET /api/health HT';

/** `count` half-open connections, spread over `addresses` local addresses 127.0.<net>.x. */
async function flood(port: number, count: number, addresses: number, net: number): Promise<Held[]> {
  const held: Held[] = [];
  for (let start = 0; start < count; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - start) }, (_, i) =>
      hold(port, HALF_LINE, `127.0.${net}.${1 + ((start + i) % addresses)}`),
    );
    held.push(...(await Promise.all(batch)));
  }
  return held;
}

const openOf = (held: Held[]) => held.filter((h) => !h.isClosed()).length;

describe(`connections that hold descriptors (${dbLabel}, ulimit -n ${FILE_LIMIT})`, () => {
  let server: LimitedServer;
  let owner: Awaited<ReturnType<typeof ownerWithProof>>;
  const flooded: Held[] = [];
  beforeAll(async () => {
    server = await startLimitedServer({}, FILE_LIMIT);
    owner = await ownerWithProof(server.port, [{ name: 'Ana', phone_number: '+351912000101' }]);
  }, 60_000);
  afterAll(async () => {
    for (const h of flooded) h.socket.destroy();
    await server?.stop();
  });

  it(`holding ${FLOOD} half-open connections from 20 addresses, the process stays up and the owner's proven alert answers 201 at once`, async () => {
    const attack = await flood(server.port, FLOOD, 20, 1);
    flooded.push(...attack);

    const started = Date.now();
    const alert = await sendAlert(server.port, owner.token, { deviceKey: owner.deviceKey });
    const took = Date.now() - started;
    expect(alert.status, alert.body).toBe(201);
    expect(JSON.parse(alert.body)).toMatchObject({ proven: true });
    expect(took).toBeLessThan(15_000);
    // Held while the alert went out: the server keeps at most its cap, the flooders' oldest idle
    // connections making way for newer ones, and none had timed out yet.
    await until('the flood capped', () => openOf(attack) <= caps.total);
    expect(openOf(attack)).toBeGreaterThan(caps.total * 0.8);

    expect(server.child.exitCode, server.stderr()).toBeNull();
    expect((await call(server.port, 'GET', '/api/health')).status).toBe(200);
    for (const h of attack) h.socket.destroy();
  }, 60_000);

  it(`keeps at most ${caps.perAddress} from one address, and the owner on that address still gets through`, async () => {
    const from = '127.0.2.1';
    const attack = await flood(server.port, caps.perAddress + 40, 1, 2);
    flooded.push(...attack);
    await until('the address capped', () => openOf(attack) <= caps.perAddress);
    // The oldest went first.
    expect(attack.slice(0, 40).every((h) => h.isClosed())).toBe(true);
    expect(attack.slice(40).filter((h) => !h.isClosed()).length).toBeGreaterThan(caps.perAddress - 5);

    const alert = await sendAlert(server.port, owner.token, { deviceKey: owner.deviceKey, from });
    expect(alert.status, alert.body).toBe(201);
    expect(server.child.exitCode).toBeNull();
    for (const h of attack) h.socket.destroy();
  }, 30_000);

  it('times out a stalled head, a stalled body and an idle keep-alive within 10 s, never a live stream', async () => {
    const from = '127.0.3.1';
    const alert = await sendAlert(server.port, owner.token, { deviceKey: owner.deviceKey, from });
    expect(alert.status, alert.body).toBe(201);
    const { id, public_id: publicId } = JSON.parse(alert.body) as { id: string; public_id: string };

    const started = Date.now();
    const stream = await hold(
      server.port,
      `GET /api/live/${publicId}/events HTTP/1.1\r\nHost: alerta.test\r\n\r\n`,
      from,
    );
    const head = await hold(server.port, HALF_LINE, from);
    const body = await hold(
      server.port,
      `POST /api/emergency/public/${owner.token}/alerts/ HTTP/1.1\r\nHost: alerta.test\r\n` +
        'Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"mode":"real",',
      from,
    );
    const idle = await hold(server.port, 'GET /api/health HTTP/1.1\r\nHost: alerta.test\r\n\r\n', from);
    flooded.push(stream, head, body, idle);
    await until('the stream opened', () => stream.received().includes('event: live'));

    await Promise.all([head.closed, body.closed, idle.closed]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(head.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(body.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(idle.received()).toMatch(/^HTTP\/1\.1 200 /);

    // The stream has outlived every one of those timeouts and still carries the next change.
    await until('the request timeout passed', () => Date.now() - started > 9_500, 15_000);
    const moved = await call(server.port, 'POST', `/api/emergency/public/${owner.token}/alerts/${id}/location/`, {
      from,
      headers: { 'x-alerta-device-key': owner.deviceKey },
      body: { latitude: 38.75, longitude: -9.14, accuracy: 5, captured_at: new Date().toISOString() },
    });
    expect(moved.status, moved.body).toBe(201);
    await until('the stream carried the position', () => stream.received().includes('"latitude":38.75'));
    expect(stream.isClosed()).toBe(false);
  }, 40_000);
});

describe('connection caps from the file limit', () => {
  it('reads the soft limit from /proc/self/limits, assumes 1,024 where it cannot, and keeps a quarter (at least 64) of it', () => {
    const limits =
      'Limit                     Soft Limit           Hard Limit           Units     \n' +
      'Max open files            4096                 524288               files     \n';
    expect(openFileLimit(() => limits)).toBe(4096);
    expect(
      openFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBe(1024);
    expect(openFileLimit()).toBeGreaterThan(0);
    expect(connectionCaps(loadConfig({}), 1024)).toEqual({ total: 768, perAddress: 64 });
    expect(connectionCaps(loadConfig({}), 20_000)).toEqual({ total: 15_000, perAddress: 64 });
    expect(connectionCaps(loadConfig({}), 128)).toEqual({ total: 64, perAddress: 64 });
    expect(connectionCaps(loadConfig({ MAX_CONNECTIONS: '500', CONNECTIONS_PER_ADDRESS: '10' }), 20_000)).toEqual({
      total: 500,
      perAddress: 10,
    });
    expect(() => loadConfig({ CONNECTIONS_PER_ADDRESS: '0' })).toThrow(/CONNECTIONS_PER_ADDRESS must be at least 1/);
  });
});
