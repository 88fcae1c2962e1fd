import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SENDING_HOLD_MS } from '../../common/constants';
import { postAlert } from './api';

// The alert POST as the page makes it where the browser routes it past the service worker
// (Chromium): the worker is given the press first, told when the server answered, and handed
// the press to queue when the network or the server failed.

const TOKEN = 'tok_abc';
const KEY = '11111111-1111-4111-8111-111111111111';
const BODY = { mode: 'real' as const, location: null, location_error: 'timeout' as const };
const URL_ = `/api/emergency/public/${TOKEN}/alerts/`;

let worker: { postMessage: ReturnType<typeof vi.fn> } | null;

function answer(response: Response | Error) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => {
      if (response instanceof Error) throw response;
      return response;
    }),
  );
}

beforeEach(() => {
  worker = { postMessage: vi.fn() };
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    get: () => ({ controller: worker }),
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, 'serviceWorker');
});

const messages = () => worker?.postMessage.mock.calls.map(([message]) => message);
const held = (waitMs: number) => ({
  type: 'ALERT_PRESSED',
  alert: { url: URL_, key: KEY, body: JSON.stringify(BODY), wait_ms: waitMs },
});

describe('the alert POST and the service worker', () => {
  it('gives the worker the press, then tells it the server answered', async () => {
    answer(Response.json({ id: 'a1', deliveries: [] }, { status: 201 }));
    const result = await postAlert(TOKEN, KEY, BODY);
    expect(result).toMatchObject({ ok: true, value: { id: 'a1' } });
    expect(messages()).toEqual([held(SENDING_HOLD_MS), { type: 'ALERT_SETTLED', key: KEY }]);
  });

  it('a refusal for good is an answer too: the worker lets go of the press', async () => {
    answer(Response.json({ detail: 'Not found.', code: 'not_found' }, { status: 404 }));
    expect(await postAlert(TOKEN, KEY, BODY)).toMatchObject({ ok: false, status: 404 });
    expect(messages()).toEqual([held(SENDING_HOLD_MS), { type: 'ALERT_SETTLED', key: KEY }]);
  });

  for (const [what, response] of [
    ['no network', new TypeError('Failed to fetch')],
    ['a server that is down', new Response('Bad gateway', { status: 502 })],
  ] as const) {
    it(`with ${what}, hands the press to the worker to send or queue now, and says it is queued`, async () => {
      answer(response);
      expect(await postAlert(TOKEN, KEY, BODY, 'dk_owner')).toEqual({ ok: true, value: 'queued' });
      const withKey = (waitMs: number) => ({
        ...held(waitMs),
        alert: { ...held(waitMs).alert, device_key: 'dk_owner' },
      });
      expect(messages()).toEqual([withKey(SENDING_HOLD_MS), withKey(0)]);
    });
  }

  it('the worker that answered 202 itself (Safari, Firefox) has queued it already: nothing more to hand over', async () => {
    answer(Response.json({ detail: 'Queued until the network returns.', code: 'queued' }, { status: 202 }));
    expect(await postAlert(TOKEN, KEY, BODY)).toEqual({ ok: true, value: 'queued' });
    expect(messages()).toEqual([held(SENDING_HOLD_MS)]);
  });

  it('with no worker in control, no network is the page’s own answer', async () => {
    worker = null;
    answer(new TypeError('Failed to fetch'));
    expect(await postAlert(TOKEN, KEY, BODY)).toEqual({ ok: false, status: 'network' });
  });
});
