import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEVICE_KEY_STORAGE_KEY } from '../../common/constants';
import { saveDeviceKey } from '../lib/device-key';
import { fetchAlert } from './api';
import { fetchSenderLive, postPosition, resolveAlert } from './live-api';

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
