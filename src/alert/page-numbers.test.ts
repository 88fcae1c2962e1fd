import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { forgetDeviceKey, saveDeviceKey } from '../lib/device-key';
import type { PageData } from './api';
import { Emergency } from './emergency';
import { PositionWatch } from './geo';
import { ownerAskedToSignIn, resetAskedToSignIn } from './owner-proof-asked';
import { loadPage, savePage } from './storage';

const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';
const data = (numbers: 'whole' | 'masked'): PageData => ({
  owner_name: 'Ana',
  language: 'pt',
  gps_enabled: false,
  countdown_seconds: 5,
  contacts: [{ id: 'c1', name: 'Rui', phone_number: numbers === 'whole' ? '+351912345678' : '•••••••678' }],
  numbers_masked: numbers === 'masked',
  messages: { real: 'EMERGÊNCIA', test: 'TESTE' },
});
const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

let token = '';
let reads: Headers[] = [];
let answer: () => Promise<Response>;

beforeEach(() => {
  token = `t${Math.random().toString(36).slice(2)}`;
  reads = [];
  // The module's "asked to sign in" outlives the test files before this one in the same worker.
  resetAskedToSignIn();
  // The server answers as it does: whole numbers to the owner's key, masked to anyone else.
  answer = async () => json(data(reads.at(-1)?.get('x-alerta-device-key') === KEY ? 'whole' : 'masked'));
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      // Only this page's data: another test's page left polling in this worker shares the stub.
      if (!String(url).endsWith(`/api/emergency/public/${token}/`)) return new Response(null, { status: 404 });
      reads.push(new Headers(init?.headers));
      return answer();
    }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  forgetDeviceKey();
  resetAskedToSignIn();
});

/** The page opened from a reminder (no countdown, nothing sent) with the server's copy in its HTML. */
const open = async () => {
  const emergency = new Emergency(token, new PositionWatch(), true, {
    shell: { page: data('masked'), source: 'server', shownAt: 0 },
  });
  await emergency.start();
  return emergency;
};

describe("the emergency page's data and the owner's key", () => {
  it('with the key, asks for its data with it and keeps the whole numbers for "send from my phone", offline too', async () => {
    saveDeviceKey(KEY, 'ana');
    const emergency = await open();
    await vi.waitFor(() => expect(emergency.state.page?.contacts[0]?.phone_number).toBe('+351912345678'));
    expect(reads).toHaveLength(1);
    expect(reads[0]?.get('x-alerta-device-key')).toBe(KEY);
    await vi.waitFor(async () => expect((await loadPage(token))?.data).toEqual(data('whole')));
    expect(ownerAskedToSignIn()).toBe(false);

    // Opened again where the data request fails: the masked copy in the HTML, the whole numbers kept.
    answer = () => Promise.reject(new TypeError('offline'));
    const again = await open();
    expect(again.state.page).toMatchObject({ contacts: [{ phone_number: '+351912345678' }], numbers_masked: false });
  });

  it('without a key, keeps the masked copy the HTML came with and asks for nothing more', async () => {
    await savePage(token, data('whole'));
    const emergency = await open();
    expect(emergency.state.page).toEqual(data('masked'));
    await vi.waitFor(async () => expect((await loadPage(token))?.data).toEqual(data('masked')));
    expect(reads).toHaveLength(0);
  });

  it('asks for its data again once the owner signs in on it: the whole numbers at once', async () => {
    const emergency = await open();
    expect(reads).toHaveLength(0);
    saveDeviceKey(KEY, 'ana');
    await emergency.ownerSignedIn();
    expect(reads.at(-1)?.get('x-alerta-device-key')).toBe(KEY);
    expect(emergency.state.page).toEqual(data('whole'));
  });

  it('with a key the server no longer takes, offers the sign-in', async () => {
    saveDeviceKey('removed-device-key', 'ana');
    const emergency = await open();
    await vi.waitFor(() => expect(ownerAskedToSignIn()).toBe(true));
    expect(emergency.state.page).toEqual(data('masked'));
  });
});
