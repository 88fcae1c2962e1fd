import { describe, expect, it } from 'vitest';
import { accountsRoutes, contactsRoutes } from '../../../common/api/routes';
import { ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY } from '../../../common/constants';
import { call, describeFailure, SessionUnavailableError } from '../../../src/api/client';
import i18n from '../../../src/i18n';
import { setNavigator } from '../../../src/lib/navigation';
import { useStore } from '../../../src/store';
import { followOtherTabs } from '../../../src/store/session';
import { fakeApi, setupAppTests, signIn } from './helpers';

setupAppTests();

/** A protected endpoint that accepts only `access-2`, and a refresh endpoint that counts its calls. */
function protectedApi(refreshAnswer = { status: 200, body: { access: 'access-2', refresh: 'refresh-2' } }) {
  let refreshes = 0;
  const fake = fakeApi({
    'GET /api/users/me/': (request) =>
      request.headers.get('Authorization') === 'Bearer access-2' ? { body: { ok: true } } : { status: 401, body: {} },
    'POST /api/emergency/contacts/': (request, body) =>
      request.headers.get('Authorization') === 'Bearer access-2' ? { status: 201, body } : { status: 401, body: {} },
    'POST /api/users/auth/refresh/': () => {
      refreshes += 1;
      return refreshAnswer;
    },
  });
  return { ...fake, refreshes: () => refreshes };
}

describe('API client', () => {
  it('sends JSON, the current language and the bearer token', async () => {
    signIn('access-2');
    const { calls } = protectedApi();
    await i18n.changeLanguage('en');
    await call(accountsRoutes.me).json();
    const headers = calls[0]!.headers;
    expect(headers.get('Accept')).toBe('application/json');
    expect(headers.get('Accept-Language')).toBe('en');
    expect(headers.get('Authorization')).toBe('Bearer access-2');
    await call(contactsRoutes.add, { json: { name: 'Ana' } }).json();
    expect(calls[1]!.headers.get('Content-Type')).toContain('application/json');
  });

  it('on a 401 refreshes once, stores both rotated tokens and retries the request once with its body', async () => {
    signIn('access-1', 'refresh-1');
    const fake = protectedApi();
    const created = await call(contactsRoutes.add, { json: { name: 'Ana' } }).json();
    expect(created).toEqual({ name: 'Ana' });
    expect(fake.refreshes()).toBe(1);
    expect(fake.calls.find((call) => call.path === '/api/users/auth/refresh/')?.body).toEqual({ refresh: 'refresh-1' });
    expect(fake.calls.filter((call) => call.path === '/api/emergency/contacts/')).toHaveLength(2);
    expect(useStore.getState()).toMatchObject({ access: 'access-2', refresh: 'refresh-2' });
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBe('access-2');
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBe('refresh-2');
  });

  it('shares one refresh between two concurrent 401s', async () => {
    signIn('access-1', 'refresh-1');
    const fake = protectedApi();
    const [a, b] = await Promise.all([call(accountsRoutes.me).json(), call(accountsRoutes.me).json()]);
    expect(a).toEqual({ ok: true });
    expect(b).toEqual({ ok: true });
    expect(fake.refreshes()).toBe(1);
    expect(fake.calls.filter((call) => call.path === '/api/users/me/')).toHaveLength(4);
  });

  it('when the refresh fails, clears the session and goes to /login', async () => {
    signIn('access-1', 'refresh-1');
    const visited: string[] = [];
    setNavigator((to) => visited.push(to));
    protectedApi({ status: 401, body: { detail: 'Token is invalid or expired', code: 'token_not_valid' } } as never);
    await expect(call(accountsRoutes.me).json()).rejects.toMatchObject({ response: { status: 401 } });
    expect(useStore.getState()).toMatchObject({ access: null, refresh: null, user: null });
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
    expect(visited).toEqual(['/login']);
    setNavigator(null);
  });

  it('retries only once: a second 401 after refreshing ends the session', async () => {
    signIn('access-1', 'refresh-1');
    const visited: string[] = [];
    setNavigator((to) => visited.push(to));
    const fake = protectedApi({ status: 200, body: { access: 'access-3', refresh: 'refresh-3' } });
    await expect(call(accountsRoutes.me).json()).rejects.toMatchObject({ response: { status: 401 } });
    expect(fake.refreshes()).toBe(1);
    expect(fake.calls.filter((call) => call.path === '/api/users/me/')).toHaveLength(2);
    expect(visited).toEqual(['/login']);
    setNavigator(null);
  });

  it('without a refresh token a 401 is just an error', async () => {
    const fake = protectedApi();
    await expect(call(accountsRoutes.me).json()).rejects.toMatchObject({ response: { status: 401 } });
    expect(fake.refreshes()).toBe(0);
  });
});

describe('API client after another call refreshed', () => {
  it('retries a late 401 with the newer token instead of refreshing again', async () => {
    signIn('access-1', 'refresh-1');
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let refreshes = 0;
    fakeApi({
      'GET /api/users/me/': (request) =>
        request.headers.get('Authorization') === 'Bearer access-2' ? { body: { ok: true } } : { status: 401 },
      'GET /api/emergency/contacts/': async (request) => {
        if (request.headers.get('Authorization') === 'Bearer access-2') return { body: [] };
        await released;
        return { status: 401 };
      },
      'POST /api/users/auth/refresh/': () => {
        refreshes += 1;
        return { body: { access: `access-${refreshes + 1}`, refresh: `refresh-${refreshes + 1}` } };
      },
    });
    // Sent with the old token; its 401 arrives only after another call has refreshed.
    const slow = call(contactsRoutes.list).json();
    await call(accountsRoutes.me).json();
    expect(refreshes).toBe(1);
    release();
    expect(await slow).toEqual([]);
    expect(refreshes).toBe(1);
  });
});

describe('API client with the app open in several tabs', () => {
  it('takes the pair another tab stored instead of spending the replaced refresh token', async () => {
    signIn('access-1', 'refresh-1');
    const fake = protectedApi();
    // Another tab refreshed meanwhile: the stored pair is newer than this tab's.
    localStorage.setItem(ACCESS_TOKEN_KEY, 'access-2');
    localStorage.setItem(REFRESH_TOKEN_KEY, 'refresh-2');
    expect(await call(accountsRoutes.me).json()).toEqual({ ok: true });
    expect(fake.refreshes()).toBe(0);
    expect(useStore.getState()).toMatchObject({ access: 'access-2', refresh: 'refresh-2' });
  });

  it('refreshes with the stored refresh token, and follows another tab logging out', async () => {
    signIn('access-1', 'refresh-1');
    const fake = protectedApi();
    localStorage.setItem(REFRESH_TOKEN_KEY, 'refresh-from-other-tab');
    await call(accountsRoutes.me).json();
    expect(fake.calls.find((call) => call.path === '/api/users/auth/refresh/')?.body).toEqual({
      refresh: 'refresh-from-other-tab',
    });
    const stop = followOtherTabs(useStore);
    localStorage.removeItem(ACCESS_TOKEN_KEY);
    localStorage.removeItem(REFRESH_TOKEN_KEY);
    window.dispatchEvent(new StorageEvent('storage', { key: REFRESH_TOKEN_KEY }));
    stop();
    expect(useStore.getState()).toMatchObject({ access: null, refresh: null, user: null });
  });

  it('a refresh that gets no answer keeps both tokens and fails the call as unreachable', async () => {
    signIn('access-1', 'refresh-1');
    fakeApi({
      'GET /api/users/me/': { status: 401, body: {} },
      'POST /api/users/auth/refresh/': { status: 502, body: {} },
    });
    const failure = await call(accountsRoutes.me)
      .json()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SessionUnavailableError);
    expect(await describeFailure(failure)).toMatchObject({ status: 0, message: { key: 'errors.network' } });
    expect(useStore.getState()).toMatchObject({ access: 'access-1', refresh: 'refresh-1' });
  });
});
