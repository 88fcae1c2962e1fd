import { fetchMe, login } from '../api/endpoints';
import { goTo } from '../lib/navigation';
import { useStore } from './index';

/** At start (and after checkout): fetches the user when an access token exists; a failure clears the session. */
export async function loadUser(): Promise<void> {
  const { access, setUser, setStatus, clearSession } = useStore.getState();
  if (!access) {
    setStatus('ready');
    return;
  }
  try {
    setUser(await fetchMe());
    setStatus('ready');
  } catch {
    clearSession();
  }
}

/** Logs in: stores both tokens, then loads the user. Throws the API's error. */
export async function logIn(username: string, password: string): Promise<void> {
  const tokens = await login(username, password);
  useStore.getState().setTokens(tokens.access, tokens.refresh ?? null);
  await loadUser();
}

/** Logs out: clears both tokens and goes to /login. */
export function logOut(): void {
  useStore.getState().clearSession();
  goTo('/login');
}
