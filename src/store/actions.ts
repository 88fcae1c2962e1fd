import { failureOf } from '../api/client';
import { endSession, fetchMe, issueDeviceKey, login } from '../api/endpoints';
import { forgetDeviceKey, readDeviceKey, saveDeviceKey } from '../lib/device-key';
import { goTo } from '../lib/navigation';
import { useStore } from './index';
import { cachedUser } from './session';
import { adoptBrowserTimeZone } from './time-zone';

/**
 * At start (and after checkout): fetches the user when an access token exists. Only a refused
 * session logs out; without an answer (no network, server error) the user last seen stays,
 * marked `loadFailed`, for a retry.
 */
export async function loadUser(): Promise<void> {
  const { access, setUser, setStatus, clearSession } = useStore.getState();
  if (!access) {
    setStatus('ready');
    return;
  }
  try {
    const user = await fetchMe();
    setUser(user);
    setStatus('ready');
    void ensureDeviceKey(user.username);
  } catch (error) {
    const { status } = await failureOf(error);
    if (status === 401 || !useStore.getState().access) {
      clearSession();
      return;
    }
    useStore.setState({ user: useStore.getState().user ?? cachedUser(), loadFailed: true, status: 'ready' });
  }
}

/** Logs in: stores both tokens, then loads the user. Throws the API's error. */
export async function logIn(username: string, password: string): Promise<void> {
  const tokens = await login(username, password);
  useStore.getState().setTokens(tokens.access, tokens.refresh ?? null);
  await loadUser();
  await adoptBrowserTimeZone();
}

/** Logs out: ends the session on the server (its refresh token stops working), clears both tokens, goes to /login. */
export async function logOut(): Promise<void> {
  try {
    await endSession();
  } catch (error) {
    // Without a network the tokens are still forgotten here; the server session then just expires.
    console.warn('Ending the session on the server failed', error);
  }
  forgetDeviceKey();
  useStore.getState().clearSession();
  goTo('/login');
}

let issuing: Promise<void> | null = null;

/**
 * Gives this device a key for the signed-in owner, once: asked only when none is stored (or the
 * stored one is another account's). The emergency page of this origin sends it with its alerts.
 * Without an answer nothing is stored and the next start of the app asks again.
 */
export function ensureDeviceKey(username: string): Promise<void> {
  if (readDeviceKey()?.user === username) return Promise.resolve();
  issuing ??= (async () => {
    try {
      const { device_key } = await issueDeviceKey();
      // Logged out (or another account) while the key was on its way: it is not this device's.
      if (useStore.getState().user?.username === username && device_key) saveDeviceKey(device_key, username);
    } catch (error) {
      console.warn('No device key for now', error);
    }
  })().finally(() => {
    issuing = null;
  });
  return issuing;
}
