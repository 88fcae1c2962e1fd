import { type FormEvent, useEffect, useRef, useState } from 'react';
import { pathOf } from '../../common/api/paths';
import { accountsRoutes, alertsRoutes } from '../../common/api/routes';
import type { Language } from '../../common/constants';
import { readDeviceKey, saveDeviceKey } from '../lib/device-key';
import { announceOwnerSignedIn } from './owner-proof-asked';
import { signInStringsFor } from './sign-in-strings';

type Outcome = 'wrong' | 'notVerified' | 'later' | 'failed';

/** The account routes this page calls (none has path parameters). */
type SignInRoute =
  | typeof accountsRoutes.login
  | typeof accountsRoutes.me
  | typeof accountsRoutes.logout
  | typeof alertsRoutes.deviceKey;

/** A call with a JSON body, if any, signed in with `access` when given. */
async function send(route: SignInRoute, { body, access }: { body?: unknown; access?: string }): Promise<Response> {
  return fetch(pathOf(route), {
    method: route.method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(access ? { authorization: `Bearer ${access}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function outcomeOf(response: Response): Promise<Outcome> {
  if (response.status === 429) return 'later';
  if (response.status === 400 || response.status === 401) return 'wrong';
  const body = (await response.json().catch(() => null)) as { code?: unknown } | null;
  return response.status === 403 && body?.code === 'email_not_verified' ? 'notVerified' : 'failed';
}

/**
 * Signs the owner in from this page and keeps only a device key: the login asks the server for
 * a key for this device, and its tokens are dropped. The login is not ended: the key lives as
 * long as it does (logging it out would end the key), until the owner removes this device in
 * Setup or every key ends (new links, "log out everywhere", a password reset); without a key it
 * ends at once. The page itself does it (not the app's /login) so
 * the key lands in this page's own storage, which on an iPhone home-screen icon is not Safari's
 * and not reachable from the app (outside the icon's scope). Resolves with the key, or why not.
 */
export async function signInForKey(identifier: string, password: string): Promise<{ key: string } | Outcome> {
  try {
    const login = await send(accountsRoutes.login, {
      body: { username: identifier.trim().toLowerCase(), password },
    });
    if (!login.ok) return outcomeOf(login);
    const { access } = (await login.json()) as { access: string };
    const issued = await send(alertsRoutes.deviceKey, { body: {}, access });
    const me = await send(accountsRoutes.me, { access });
    if (!issued.ok || !me.ok) {
      void send(accountsRoutes.logout, { body: {}, access }).catch(() => undefined);
      return 'failed';
    }
    const { device_key: key } = (await issued.json()) as { device_key: string };
    const { username } = (await me.json()) as { username: string };
    if (!key) return 'failed';
    // Awaited: the service worker's copy is there once the page says this button is the owner's.
    await saveDeviceKey(key, username);
    return { key };
  } catch {
    return 'failed';
  }
}

/**
 * "Is this your phone?": shown below the page while this device has no key, or when `offer` (an
 * alert sent with a key was not taken as the owner's, or a change only the owner may make was
 * refused: the key was dropped or is another account's). Opens a small sign-in form; once signed
 * in, this device's alerts, "I'm safe" and positions go as the owner's.
 */
export function OwnerSignIn({
  language,
  offer = false,
  here = false,
  onSignedIn,
}: {
  language: Language;
  offer?: boolean;
  /** Drawn open where a change was refused, its first field focused: nobody is sent looking for it. */
  here?: boolean;
  /** Once this device holds the owner's key (the page asks for its data again, with it). */
  onSignedIn?: () => void;
}) {
  const [hasKey, setHasKey] = useState(() => readDeviceKey() !== null);
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Outcome | null>(null);
  const first = useRef<HTMLInputElement>(null);
  const s = signInStringsFor(language);
  useEffect(() => {
    if (!here) return;
    first.current?.scrollIntoView?.({ block: 'center' });
    first.current?.focus();
  }, [here]);
  if (done)
    return (
      <p className="hint" role="status" data-testid="owner-signed-in">
        {s.signedIn}
      </p>
    );
  if (hasKey && !offer && !here) return null;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setProblem(null);
    const outcome = await signInForKey(String(form.get('username') ?? ''), String(form.get('password') ?? ''));
    setBusy(false);
    if (typeof outcome === 'string') setProblem(outcome);
    else {
      setHasKey(true);
      setDone(true);
      // The whole page learns it, whichever form it came from (this one may sit beside a refusal).
      announceOwnerSignedIn();
      onSignedIn?.();
    }
  }

  return (
    <details
      className="owner-sign-in"
      data-testid={here ? 'owner-sign-in-here' : 'owner-sign-in'}
      open={here || undefined}
    >
      <summary>{s.ownerSignIn}</summary>
      <p className="hint">{s.ownerSignInHint}</p>
      <form onSubmit={(event) => void submit(event)}>
        <label>
          {s.username}
          <input ref={first} name="username" autoComplete="username" autoCapitalize="none" required />
        </label>
        <label>
          {s.password}
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        {problem && (
          <p className="sign-in-problem" role="alert">
            {s.signInProblem[problem]}
          </p>
        )}
        <button type="submit" className="button secondary" disabled={busy}>
          {busy ? s.signingIn : s.signIn}
        </button>
      </form>
    </details>
  );
}
