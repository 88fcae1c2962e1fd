import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { LoadSampler, type MemoryReading, ResidentInUse } from '../../server/plugins/load-sampler.js';
import { type Load, overloadLevel } from '../../server/plugins/overload.js';
import { lisbonAt, ownerWithContacts } from './alerts-fixtures.js';
import { dbLabel, suiteApp, type TestApp } from './helper.js';

// Load shedding that refuses no owner's proven alert for anyone else's load, and never stays on
// once the load has gone; samplers and the listening socket that keep the process up when the
// descriptors run out.

const MB = 2 ** 20;
const CALM: Load = { eventLoopDelayMs: 0, heapUsedBytes: 50 * MB, rssBytes: 100 * MB };

const sendAlert = (t: TestApp, token: string, proof: Record<string, string> = {}, ip = '10.90.0.1') =>
  t.app.inject({
    method: 'POST',
    url: `/api/emergency/public/${token}/alerts/`,
    headers: { 'idempotency-key': randomUUID(), ...proof },
    payload: { mode: 'real', location: lisbonAt(t.app) },
    remoteAddress: ip,
  });

const deviceKey = async (t: TestApp, headers: { authorization: string }) => {
  const res = await t.app.inject({ method: 'POST', url: '/api/users/me/device-keys/', headers, payload: {} });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().device_key as string;
};

describe(`load shedding and the owner's proven alert (${dbLabel})`, () => {
  let load: Load = CALM;
  const t = suiteApp({}, undefined, { loadProbe: () => load });
  beforeEach(() => {
    load = CALM;
  });

  it("refuses a link-only alert and forged proofs at the highest load, and takes the owner's proven alert from the same address", async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351930000101']] });
    const other = await ownerWithContacts(t.app, { contacts: [['Rui', '+351930000102']] });
    const key = await deviceKey(t, owner.headers);
    const othersKey = await deviceKey(t, other.headers);
    // Someone else's load: the event loop 3.5 s late, past the alerts' own threshold (3 s).
    load = { ...CALM, eventLoopDelayMs: 3500 };

    const refusals: Record<string, string>[] = [
      {},
      { 'x-alerta-device-key': randomBytes(32).toString('base64url') },
      { 'x-alerta-device-key': othersKey },
      { authorization: other.headers.authorization },
      { authorization: `Bearer ${randomBytes(40).toString('base64url')}` },
    ];
    for (const proof of refusals) {
      const res = await sendAlert(t, owner.token, proof);
      expect(res.statusCode, JSON.stringify(proof)).toBe(503);
      expect(res.json()).toEqual({ detail: expect.stringMatching(/overloaded/), code: 'overloaded' });
    }

    for (const proof of [{ 'x-alerta-device-key': key }, owner.headers]) {
      const res = await sendAlert(t, owner.token, proof);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ proven: true });
    }
    // Everything else is still shed.
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(503);
  });
});

/** What the sampler reads from V8 and the system: heap in use, buffers held, resident size. */
const reading = (heapMb: number, externalMb: number, rssMb: number): MemoryReading => ({
  heapUsedBytes: heapMb * MB,
  externalBytes: externalMb * MB,
  rssBytes: rssMb * MB,
});

describe(`resident memory after a spike (${dbLabel})`, () => {
  let now = reading(50, 10, 150);
  const resident = new ResidentInUse();
  // The load as the sampler makes it from each reading.
  const t = suiteApp({ OVERLOAD_RSS_MB: '800', OVERLOAD_ALERT_RSS_MB: '1500' }, undefined, {
    loadProbe: () => ({ eventLoopDelayMs: 0, heapUsedBytes: now.heapUsedBytes, rssBytes: resident.next(now) }),
  });
  const health = async () => (await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode;

  it('sheds while stalled bodies hold the memory, and stops once they are gone though RSS stays up', async () => {
    expect(await health()).toBe(200);
    // Thousands of half-sent bodies: 700 MB of buffers, RSS 900 MB.
    now = reading(60, 700, 900);
    expect(await health()).toBe(503);
    // The attacker left: the buffers are freed, the allocator keeps the pages (RSS stays at 900 MB).
    now = reading(50, 10, 900);
    expect(await health()).toBe(200);
    expect(await health()).toBe(200);
  });

  it('still counts memory taken again beyond what was freed, and native memory that grows', () => {
    const config = loadConfig({ OVERLOAD_RSS_MB: '800', OVERLOAD_ALERT_RSS_MB: '1500' });
    const level = (memory: ResidentInUse, r: MemoryReading) =>
      overloadLevel({ eventLoopDelayMs: 0, heapUsedBytes: r.heapUsedBytes, rssBytes: memory.next(r) }, config);
    const afterSpike = new ResidentInUse();
    for (const r of [reading(50, 10, 150), reading(60, 700, 900), reading(50, 10, 900)]) level(afterSpike, r);
    // New requests reuse the kept pages first: RSS does not move, the memory in use does.
    expect(level(afterSpike, reading(50, 500, 900))).toBe('ok');
    expect(level(afterSpike, reading(60, 850, 950))).toBe('shed');
    // Memory outside JavaScript's reach counts whole.
    const native = new ResidentInUse();
    expect(level(native, reading(50, 10, 150))).toBe('ok');
    expect(level(native, reading(50, 10, 1000))).toBe('shed');
    expect(level(native, reading(50, 10, 1600))).toBe('full');
  });
});

describe('the process survives running out of descriptors', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('samples on when the resident size cannot be read (EMFILE), keeping the last reading', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const errors: Error[] = [];
    const sampler = new LoadSampler((error) => errors.push(error));
    vi.advanceTimersByTime(1000);
    const before = sampler.load.rssBytes;
    expect(before).toBeGreaterThan(0);
    const emfile = Object.assign(new Error('EMFILE: too many open files, uv_resident_set_memory'), { code: 'EMFILE' });
    vi.spyOn(process.memoryUsage, 'rss').mockImplementation(() => {
      throw emfile;
    });
    expect(() => vi.advanceTimersByTime(5000)).not.toThrow();
    // Told once, not every second.
    expect(errors).toEqual([emfile]);
    expect(sampler.load.heapUsedBytes).toBeGreaterThan(0);
    expect(sampler.load.rssBytes).toBeGreaterThan(0);
    vi.mocked(process.memoryUsage.rss).mockRestore();
    vi.advanceTimersByTime(1000);
    expect(sampler.load.rssBytes).toBeGreaterThan(0);
    sampler.stop();
  });
});

describe(`the listening socket's errors (${dbLabel})`, () => {
  const lines: string[] = [];
  const t = suiteApp({}, undefined, { logLines: lines });

  it('logs an accept that fails (EMFILE) and keeps answering', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const emfile = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE', syscall: 'accept' });
    expect(() => t.app.server.emit('error', emfile)).not.toThrow();
    expect(() => t.app.server.emit('error', emfile)).not.toThrow();
    const logged = lines.filter((line) => line.includes('listening socket error'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('EMFILE');
    expect((await t.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });
});
