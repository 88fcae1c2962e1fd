import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ownerWithContacts } from './alerts-fixtures.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { postResolve, sendRealAlert } from './live-fixtures.js';

const DAY = 24 * 60 * 60_000;

/** A stream's text as it arrives, read with a deadline for each wait. */
function streamReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  /** Reads until `done(text)` holds or the stream ends; throws after `ms`. */
  async function until(done: (text: string) => boolean, ms = 2000): Promise<string> {
    const deadline = Date.now() + ms;
    while (!done(text) && !ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`not in time; got ${JSON.stringify(text)}`);
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('not in time')), left)),
      ]);
      if (chunk.done) ended = true;
      else text += decoder.decode(chunk.value, { stream: true });
    }
    return text;
  }
  return {
    until,
    /** Resolves once the server has ended the stream. */
    ended: async () => {
      await until(() => false);
      return ended;
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

describe(`the live event stream on the wire (${dbLabel})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
  });

  const follow = async (publicId: string) => {
    const res = await fetch(`${base}/api/live/${publicId}/events`, { headers: { accept: 'text/event-stream' } });
    return { res, stream: streamReader(res.body as ReadableStream<Uint8Array>) };
  };

  it('sends what EventSource reads: the reconnect delay, then `live` events, uncached and unbuffered', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351922000101']] });
    const alert = await sendRealAlert(t.app, owner.token);
    const { res, stream } = await follow(alert.public_id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    const text = await stream.until((s) => /event: live\ndata: .*\n\n/.test(s));
    const match = text.match(/^retry: 3000\n\nevent: live\ndata: (.*)\n\n$/);
    expect(match, text).not.toBeNull();
    expect(JSON.parse(match?.[1] as string)).toMatchObject({ state: 'active', owner_name: owner.user.username });
    await stream.cancel();
  });

  it('keeps a quiet stream open with a comment every 15 seconds', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351922000102']] });
    const alert = await sendRealAlert(t.app, owner.token);
    // Only the stream's own intervals (its heartbeat and re-read) run on the fake clock.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { stream } = await follow(alert.public_id);
    const first = await stream.until((s) => s.includes('event: live'));
    vi.advanceTimersByTime(15_000);
    const text = await stream.until((s) => s.length > first.length && s.endsWith('\n\n'));
    expect(text.slice(first.length)).toMatch(/^: \w+\n\n$/);
    await stream.cancel();
    // The server's side closes (clearing its fake intervals) before the real ones return.
    await vi.waitFor(() => expect(vi.getTimerCount()).toBe(0), { timeout: 2000 });
    vi.useRealTimers();
  });

  it('ends the stream once the alert has ended', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351922000103']] });
    const alert = await sendRealAlert(t.app, owner.token);
    await postResolve(t.app, owner.token, alert.id, { notify: false });
    const { stream } = await follow(alert.public_id);
    await stream.until((s) => s.includes('"state":"resolved"'));
    t.clock.advance(DAY + 1000);
    t.app.liveHub.publish(alert.id);
    const text = await stream.until(() => false);
    expect(text).toContain('"state":"ended"');
    expect(await stream.ended()).toBe(true);
  });

  it('ends open streams when the server closes, without waiting for them', async () => {
    const own = await buildTestApp();
    const ownBase = await own.app.listen({ port: 0, host: '127.0.0.1' });
    const owner = await ownerWithContacts(own.app, { contacts: [['Ana', '+351922000104']] });
    const alert = await sendRealAlert(own.app, owner.token);
    const res = await fetch(`${ownBase}/api/live/${alert.public_id}/events`);
    const stream = streamReader(res.body as ReadableStream<Uint8Array>);
    await stream.until((s) => s.includes('event: live'));
    await own.close();
    expect(await stream.ended()).toBe(true);
  });
});
