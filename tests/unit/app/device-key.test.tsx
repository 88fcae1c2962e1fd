import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { DEVICE_KEY_STORAGE_KEY } from '../../../common/constants';
import { readDeviceKey, saveDeviceKey } from '../../../src/lib/device-key';
import { setNavigator } from '../../../src/lib/navigation';
import { ensureDeviceKey, logOut } from '../../../src/store/actions';
import { fakeApi, renderApp, setupAppTests, signIn, user } from './helpers';

setupAppTests();

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

/** The API of a signed-in owner that issues device keys and counts them. */
function ownerApi() {
  let issued = 0;
  const fake = fakeApi({
    'POST /api/users/auth/login/': { body: { access: 'a1', refresh: 'r1' } },
    'GET /api/users/me/': { body: user() },
    'POST /api/users/me/device-keys/': (request) => {
      issued += 1;
      return request.headers.get('Authorization') === 'Bearer a1'
        ? { status: 201, body: { device_key: `key-${issued}` } }
        : { status: 401, body: {} };
    },
    'POST /api/users/auth/logout/': { status: 204 },
  });
  return { ...fake, issued: () => issued };
}

describe('device key', () => {
  it('is asked for once after login, with the session, and stored where the emergency page reads it', async () => {
    const api = ownerApi();
    renderApp('/login');
    type('Nome de utilizador ou e-mail', 'ana');
    type('Palavra-passe', 'segura123');
    fireEvent.click(screen.getByRole('button', { name: 'Entrar' }));
    expect(await screen.findByRole('heading', { name: 'Olá, ana' }, { timeout: 5000 })).toBeInTheDocument();
    await vi.waitFor(() => expect(readDeviceKey()).toEqual({ key: 'key-1', user: 'ana' }), { timeout: 5000 });
    expect(JSON.parse(localStorage.getItem(DEVICE_KEY_STORAGE_KEY) ?? 'null')).toEqual({ key: 'key-1', user: 'ana' });
    // Opening the app again (and setup) with the key stored asks for no other.
    await ensureDeviceKey('ana');
    await ensureDeviceKey('ana');
    expect(api.issued()).toBe(1);
    expect(api.calls.find((c) => c.path === '/api/users/me/device-keys/')?.body).toEqual({});
  });

  it('opening the app signed in without a key asks for one; with one stored, none', async () => {
    signIn('a1', 'r1');
    const api = ownerApi();
    renderApp('/');
    await vi.waitFor(() => expect(readDeviceKey()?.key).toBe('key-1'), { timeout: 5000 });
    signIn('a1', 'r1');
    renderApp('/');
    expect(await screen.findAllByRole('heading', { name: 'Olá, ana' }, { timeout: 5000 })).not.toHaveLength(0);
    expect(api.issued()).toBe(1);
  });

  it('another account’s key on this device is replaced by the signed-in owner’s', async () => {
    saveDeviceKey('someone-else', 'rui');
    signIn('a1', 'r1');
    const api = ownerApi();
    renderApp('/');
    await vi.waitFor(() => expect(readDeviceKey()).toEqual({ key: 'key-1', user: 'ana' }), { timeout: 5000 });
    expect(api.issued()).toBe(1);
  });

  it('a failed request stores nothing, and the next start asks again', async () => {
    signIn('a1', 'r1');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    fakeApi({ 'GET /api/users/me/': { body: user() }, 'POST /api/users/me/device-keys/': { status: 503, body: {} } });
    await ensureDeviceKey('ana');
    expect(readDeviceKey()).toBeNull();
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
  });

  it('is dropped on logout', async () => {
    signIn('a1', 'r1');
    ownerApi();
    saveDeviceKey('key-1', 'ana');
    setNavigator(() => undefined);
    await logOut();
    setNavigator(null);
    expect(readDeviceKey()).toBeNull();
    expect(localStorage.getItem(DEVICE_KEY_STORAGE_KEY)).toBeNull();
  });
});
