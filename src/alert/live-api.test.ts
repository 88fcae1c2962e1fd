import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEVICE_KEY_STORAGE_KEY } from '../../common/constants';
import { saveDeviceKey } from '../lib/device-key';
import { fetchAlert } from './api';
import { fetchSenderLive, needsOwnerProof, postPosition, resolveAlert } from './live-api';

const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';
const fix = { latitude: 38.7, longitude: -9.1, accuracy: 10, captured_at: '2026-11-25T12:00:00Z' };
let sent: Headers[] = [];

beforeEach(() => {
  sent = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init?: RequestInit) => {
      sent.push(new Headers(init?.headers));
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.removeItem(DEVICE_KEY_STORAGE_KEY);
});

const everyCall = async () => {
  await postPosition('tok', 'a1', fix);
  await fetchSenderLive('tok', 'a1');
  await resolveAlert('tok', 'a1', false);
  await fetchAlert('tok', 'a1');
};

describe('the sender page’s calls after its alert', () => {
  it('carry the owner’s device key when this device has one, so a flooded shared address cannot hold them', async () => {
    saveDeviceKey(KEY, 'ana');
    await everyCall();
    expect(sent).toHaveLength(4);
    for (const headers of sent) expect(headers.get('x-alerta-device-key')).toBe(KEY);
  });

  it('go without the header when there is no key', async () => {
    await everyCall();
    expect(sent).toHaveLength(4);
    for (const headers of sent) expect(headers.has('x-alerta-device-key')).toBe(false);
  });
});

describe('a change only the owner may make, refused', () => {
  it('is told apart from any other refusal: its code comes back with the status', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) =>
        url.endsWith('/resolve/')
          ? new Response(JSON.stringify({ detail: 'Only the owner can do this.', code: 'owner_proof_required' }), {
              status: 403,
            })
          : new Response(JSON.stringify({ detail: 'This alert has ended.', code: 'alert_resolved' }), { status: 409 }),
      ),
    );
    const refused = await resolveAlert('tok', 'a1', true);
    expect(refused).toEqual({ status: 403, code: 'owner_proof_required' });
    expect(needsOwnerProof(refused)).toBe(true);
    const ended = await postPosition('tok', 'a1', fix);
    expect(ended).toEqual({ status: 409, code: 'alert_resolved' });
    expect(needsOwnerProof(ended)).toBe(false);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('offline'))),
    );
    expect(await resolveAlert('tok', 'a1', true)).toEqual({ status: 0 });
  });
});
