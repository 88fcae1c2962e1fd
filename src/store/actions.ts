import { failureOf } from '../api/client';
import { endEverySession } from '../api/devices';
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

/**
 * Logs in: stores both tokens, then loads the user. Throws the API's error. A key stored from
 * before is dropped: it may have ended with its login (logout, a password reset), and a key of
 * this login's own ends when it logs out.
 */
export async function logIn(username: string, password: string): Promise<void> {
  const tokens = await login(username, password);
  forgetDeviceKey();
  useStore.getState().setTokens(tokens.access, tokens.refresh ?? null);
  await loadUser();
  await adoptBrowserTimeZone();
}

/** Forgets the session and this device's key here, and goes to /login. */
function leave(): void {
  forgetDeviceKey();
  useStore.getState().clearSession();
  goTo('/login');
}

/**
 * Logs out: ends the session on the server (its refresh token and the device key it issued stop
 * working), clears both tokens and the key, goes to /login.
 */
export async function logOut(): Promise<void> {
  try {
    await endSession();
  } catch (error) {
    // Without a network the tokens are still forgotten here; the server session then just expires.
    console.warn('Ending the session on the server failed', error);
  }
  leave();
}

/** "Log out everywhere": every login and device key of the account ends on the server, then here. Throws the API's error. */
export async function logOutEverywhere(): Promise<void> {
  await endEverySession();
  leave();
}

/** A new key for this device, after the server ended them all (new links). */
export function renewDeviceKey(username: string): Promise<void> {
  forgetDeviceKey();
  return ensureDeviceKey(username);
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
