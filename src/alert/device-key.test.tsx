import 'fake-indexeddb/auto';
import { fireEvent, render, screen } from '@testing-library/react';
import { createStore, get } from 'idb-keyval';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEVICE_KEY_STORAGE_KEY } from '../../common/constants';
import { DEVICE_KEY_DB } from '../../common/push';
import { forgetDeviceKey, readDeviceKey, saveDeviceKey, syncDeviceKeyMirror } from '../lib/device-key';
import type { PageData } from './api';
import { fakePush, PUSH_ENDPOINT } from './daily-test-fixtures';
import { Emergency } from './emergency';
import { PositionWatch } from './geo';
import { noteRegistered } from './reminders-here';
import { OwnerSignIn, signInForKey } from './SignIn';
import { savePage } from './storage';

const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';
const page: PageData = {
  owner_name: 'Ana',
  language: 'pt',
  gps_enabled: false,
  countdown_seconds: 0,
  contacts: [{ name: 'Rui', phone_number: '+351912345678' }],
  messages: { real: 'EMERGÊNCIA', test: 'TESTE' },
};
const alertResult = { id: 'a1', mode: 'real', created_at: 1, deliveries: [{ contact_name: 'Rui', status: 'sent' }] };
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

let token = '';
let calls: { url: string; method: string; headers: Headers; body: unknown }[] = [];
let answers: Record<string, () => Response> = {};

beforeEach(() => {
  token = `t${Math.random().toString(36).slice(2)}`;
  calls = [];
  answers = {};
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET';
      calls.push({
        url,
        method,
        headers: new Headers(init?.headers),
        body: init?.body && JSON.parse(String(init.body)),
      });
      const answer = answers[`${method} ${url}`];
      if (answer) return answer();
      if (method === 'POST' && url.endsWith('/alerts/')) return json(201, alertResult);
      return json(200, page);
    }),
  );
});
afterEach(async () => {
  vi.unstubAllGlobals();
  await forgetDeviceKey();
});

/** The copy the service worker reads (sw/push.ts): the daily reminder's "I'm OK" checks in with it. */
const workerCopy = () => get(DEVICE_KEY_STORAGE_KEY, createStore(DEVICE_KEY_DB.database, DEVICE_KEY_DB.store));

const alertPosts = () => calls.filter((c) => c.method === 'POST' && c.url.endsWith('/alerts/'));

async function pressOnce() {
  await savePage(token, page);
  const emergency = new Emergency(token, new PositionWatch());
  await emergency.start();
  await vi.waitFor(() => expect(emergency.state.phase.name).toBe('sent'), { timeout: 3000 });
  return emergency;
}

describe('the emergency page sends the owner’s device key', () => {
  it('with a key stored on this device, the alert POST carries X-Alerta-Device-Key', async () => {
    saveDeviceKey(KEY, 'ana');
    await pressOnce();
    expect(alertPosts()).toHaveLength(1);
    expect(alertPosts()[0]?.headers.get('x-alerta-device-key')).toBe(KEY);
    expect(alertPosts()[0]?.headers.get('idempotency-key')).toBeTruthy();
  });

  it('without a key, the alert goes without the header (a link-only alert, as before)', async () => {
    await pressOnce();
    expect(alertPosts()).toHaveLength(1);
    expect(alertPosts()[0]?.headers.has('x-alerta-device-key')).toBe(false);
  });

  it('an unreadable stored value counts as no key', async () => {
    localStorage.setItem(DEVICE_KEY_STORAGE_KEY, '{"key": 42}');
    expect(readDeviceKey()).toBeNull();
    await pressOnce();
    expect(alertPosts()[0]?.headers.has('x-alerta-device-key')).toBe(false);
  });
});

describe('"Is this your phone?" on the emergency page', () => {
  it('is shown only while this device has no key', () => {
    const { unmount } = render(<OwnerSignIn language="en" />);
    expect(screen.getByText('Is this your phone? Sign in once to make this button yours')).toBeInTheDocument();
    unmount();
    saveDeviceKey(KEY, 'ana');
    render(<OwnerSignIn language="en" />);
    expect(screen.queryByTestId('owner-sign-in')).toBeNull();
  });

  it('signs in and keeps only the device key issued to the owner; its login stays, or logging out would end the key', async () => {
    answers = {
      'POST /api/users/auth/login/': () => json(200, { access: 'acc-1', refresh: 'ref-1' }),
      'POST /api/users/me/device-keys/': () => json(201, { device_key: KEY }),
      'GET /api/users/me/': () => json(200, { username: 'ana' }),
      'POST /api/users/auth/logout/': () => new Response(null, { status: 204 }),
    };
    render(<OwnerSignIn language="en" />);
    fireEvent.change(screen.getByLabelText('Username or e-mail'), { target: { value: ' Ana@Example.com ' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'segura123' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByTestId('owner-signed-in', {}, { timeout: 5000 })).toHaveTextContent(
      'This button is now yours',
    );
    expect(calls.find((c) => c.url === '/api/users/auth/login/')?.body).toEqual({
      username: 'ana@example.com',
      password: 'segura123',
    });
    const issued = calls.filter((c) => c.url === '/api/users/me/device-keys/');
    expect(issued).toHaveLength(1);
    expect(issued[0]?.headers.get('authorization')).toBe('Bearer acc-1');
    expect(readDeviceKey()).toEqual({ key: KEY, user: 'ana' });
    expect(calls.some((c) => c.url === '/api/users/auth/logout/')).toBe(false);
    // No session is kept on this page: only the key.
    expect(Object.keys(localStorage)).toEqual([DEVICE_KEY_STORAGE_KEY]);
  });

  it('ends the login at once when no key came of it, and keeps nothing', async () => {
    answers = {
      'POST /api/users/auth/login/': () => json(200, { access: 'acc-2', refresh: 'ref-2' }),
      'POST /api/users/me/device-keys/': () => json(503, {}),
      'GET /api/users/me/': () => json(200, { username: 'ana' }),
      'POST /api/users/auth/logout/': () => new Response(null, { status: 204 }),
    };
    expect(await signInForKey('ana', 'segura123')).toBe('failed');
    expect(calls.find((c) => c.url === '/api/users/auth/logout/')?.headers.get('authorization')).toBe('Bearer acc-2');
    expect(readDeviceKey()).toBeNull();
  });

  it('says why not, in the page’s language, and keeps no key', async () => {
    answers = {
      'POST /api/users/auth/login/': () => json(401, { detail: 'No active account', code: 'no_active_account' }),
    };
    render(<OwnerSignIn language="pt" />);
    fireEvent.change(screen.getByLabelText('Nome de utilizador ou e-mail'), { target: { value: 'ana' } });
    fireEvent.change(screen.getByLabelText('Palavra-passe'), { target: { value: 'errada' } });
    fireEvent.click(screen.getByRole('button', { name: 'Iniciar sessão' }));
    expect(await screen.findByRole('alert', {}, { timeout: 5000 })).toHaveTextContent(
      'Nome de utilizador ou palavra-passe errados.',
    );
    expect(readDeviceKey()).toBeNull();
    expect(calls.some((c) => c.url === '/api/users/me/device-keys/')).toBe(false);
  });
});

describe('the service worker’s copy of the device key', () => {
  it('is written when the owner signs in on the page, and removed with the key', async () => {
    answers = {
      'POST /api/users/auth/login/': () => json(200, { access: 'acc-3', refresh: 'ref-3' }),
      'POST /api/users/me/device-keys/': () => json(201, { device_key: KEY }),
      'GET /api/users/me/': () => json(200, { username: 'ana' }),
    };
    expect(await signInForKey('ana', 'segura123')).toEqual({ key: KEY });
    expect(await workerCopy()).toEqual({ key: KEY, user: 'ana' });
    await forgetDeviceKey();
    expect(readDeviceKey()).toBeNull();
    expect(await workerCopy()).toBeUndefined();
  });

  it('follows the key stored on this device when the page starts: one kept from before is copied, a stale copy goes', async () => {
    localStorage.setItem(DEVICE_KEY_STORAGE_KEY, JSON.stringify({ key: KEY, user: 'ana' }));
    await syncDeviceKeyMirror();
    expect(await workerCopy()).toEqual({ key: KEY, user: 'ana' });
    // Forgotten by another tab (signed out in the app): the next start removes the copy.
    localStorage.removeItem(DEVICE_KEY_STORAGE_KEY);
    await syncDeviceKeyMirror();
    expect(await workerCopy()).toBeUndefined();
  });
});

describe('forgetting the key (logout, account deleted, this device removed)', () => {
  afterEach(() => {
    Reflect.deleteProperty(navigator, 'serviceWorker');
  });

  it('ends this browser’s push subscription and removes the notes about it', async () => {
    const { unsubscribe } = fakePush({ permission: 'granted', subscribed: true });
    await saveDeviceKey(KEY, 'ana');
    noteRegistered(PUSH_ENDPOINT);
    localStorage.setItem('alerta.daily-push-offered', '2026-11-30T10:00:00.000Z');
    expect(localStorage.getItem('alerta.push-registered')).not.toBeNull();
    await forgetDeviceKey();
    expect(unsubscribe).toHaveBeenCalledOnce();
    expect(localStorage.getItem('alerta.push-registered')).toBeNull();
    expect(localStorage.getItem('alerta.daily-push-offered')).toBeNull();
    expect(readDeviceKey()).toBeNull();
    expect(await workerCopy()).toBeUndefined();
  });

  it('with no service worker or Push API here, still forgets the key', async () => {
    await saveDeviceKey(KEY, 'ana');
    await forgetDeviceKey();
    expect(readDeviceKey()).toBeNull();
  });
});
