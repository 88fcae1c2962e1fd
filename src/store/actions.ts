import { failureOf } from '../api/client';
import { endSession, fetchMe, login } from '../api/endpoints';
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
    setUser(await fetchMe());
    setStatus('ready');
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
  useStore.getState().clearSession();
  goTo('/login');
}
