import { PASSWORD_MAX, type TokenPair } from '../../../common/api/accounts.js';
import type { User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { detailError } from '../../lib/errors.js';
import { REFRESH_TOKEN_TTL_MS } from '../../plugins/auth.js';
import { throttled } from '../../plugins/security.js';
import { type Client, type LoginDevice, newDeviceId, refreshClient } from './devices.js';
import { verifyPassword } from './passwords.js';
import {
  consumeRefreshToken,
  createSession,
  findByLogin,
  findRefreshToken,
  insertRefreshToken,
  revokeAllSessions,
  revokeSession,
  spendRefreshGrace,
  successorOf,
} from './repository.js';
import { loginDelayMs, type Throttles } from './throttle.js';

export const SESSION_TEXTS = {
  invalidCredentials: 'No active account found with the given credentials',
  emailNotVerified: 'email_not_verified',
  invalidRefresh: 'Token is invalid or expired',
} as const;

/**
 * Longest identifier worth looking up: an e-mail address is at most 254 characters.
 * (One holding a NUL matches nobody, and PostgreSQL would refuse it in a query.)
 */
const IDENTIFIER_MAX = 254;

/** What logging in and refreshing need: the sessions' rows and their signed tokens. */
type SessionDeps = Pick<Deps, 'db' | 'clock' | 'tokens'>;

const invalidCredentials = () => detailError(401, SESSION_TEXTS.invalidCredentials, 'no_active_account');

/** A new login's tokens, and the login device cookie its browser gets (devices.ts). */
export interface LoginResult {
  tokens: TokenPair;
  device: LoginDevice;
}

/**
 * Logs in by username or e-mail (case-insensitive): a new session with its first refresh
 * token. The limits (throttle.ts) are meant for strangers: failures per identifier as typed
 * and client address (the fifth in 15 minutes refuses that address for the rest of the
 * window), and per identifier from everywhere, which only delays the answer (never refuses
 * it), more with each failure past five in the hour. Neither applies to a browser whose login
 * device cookie names this account: its own wrong passwords count against that cookie alone,
 * and past five it counts as an unknown browser. Keyed by what was typed, never by the
 * account, so the counters say nothing of which e-mail belongs to which username.
 */
export async function login(
  deps: SessionDeps,
  throttles: Throttles,
  client: Client,
  input: { username: string; password: string },
): Promise<LoginResult> {
  const { password } = input;
  const identifier = input.username;

  const user =
    identifier.length <= IDENTIFIER_MAX && !identifier.includes('\u0000') && password.length <= PASSWORD_MAX * 4
      ? await findByLogin(deps.db, identifier)
      : undefined;
  const { ok, known } = await checkPasswordThrottled(deps, throttles, client, identifier, user, password);
  if (!user || !ok) throw invalidCredentials();
  // Said only after the right password, so it tells a stranger nothing.
  if (user.email && !user.email_verified) throw detailError(403, SESSION_TEXTS.emailNotVerified, 'email_not_verified');

  const now = deps.clock.now();
  const { sessionId, refreshId } = await deps.db
    .transaction()
    .execute((trx) => createSession(trx, user.id, now, REFRESH_TOKEN_TTL_MS));
  return {
    tokens: {
      access: await deps.tokens.signAccess(user.id, sessionId),
      refresh: await deps.tokens.signRefresh(user.id, sessionId, refreshId),
    },
    // A known browser keeps its id; any other gets a new one.
    device: { userId: user.id, deviceId: known ? known.deviceId : newDeviceId() },
  };
}

/**
 * Checks `password` for `user` (none: an unknown identifier, which fails after the same argon2
 * time) under the login limits of `identifier` as typed: refused (429) when that address is
 * locked out, slowed down past five failures from anywhere, both skipped for a browser whose
 * device cookie names this account (`known`). A wrong password counts against those same limits.
 */
export async function checkPasswordThrottled(
  deps: Pick<Deps, 'clock'>,
  throttles: Throttles,
  client: Client,
  identifier: string,
  user: User | undefined,
  password: string,
): Promise<{ ok: boolean; known: LoginDevice | null }> {
  const presented = client.device;
  const mine = presented !== null && user !== undefined && presented.userId === user.id;
  const attempt = { identifier, ip: client.ip };
  // Each check reads the counters after the one before it counted its failure: guesses sent at
  // once are read no faster than one by one (in this process).
  const line = mine ? `device:${presented.deviceId}` : `login:${identifier}|${client.ip}`;
  return throttles.checks(line, async () => {
    // The browser's device cookie names this account, and has not failed too often itself.
    const known =
      mine && (await throttles.deviceFailures.read(presented.deviceId)).count < throttles.deviceFailures.max
        ? presented
        : null;
    if (!known) {
      const here = await throttles.loginFailures.read(attempt);
      if (here.count >= throttles.loginFailures.max) throw throttled(here.seconds);
      const delay = loginDelayMs((await throttles.loginFailuresAnywhere.read(identifier)).count);
      if (delay > 0) await deps.clock.sleep(delay);
    }

    // An unknown identifier is checked against a decoy hash: the same time, never a match.
    const ok = await verifyPassword(user?.password_hash, password);
    if (ok) return { ok, known };
    if (known) await throttles.deviceFailures.add(known.deviceId);
    else {
      await throttles.loginFailures.add(attempt);
      await throttles.loginFailuresAnywhere.add(identifier);
    }
    return { ok, known };
  });
}

const invalidRefresh = () => detailError(401, SESSION_TEXTS.invalidRefresh, 'token_not_valid');

/**
 * How long a just-replaced refresh token still answers with its successor (ms): two tabs
 * refreshing at once, or an answer lost on a flaky network, are not a stolen copy.
 */
export const REFRESH_GRACE_MS = 30_000;

/**
 * Swaps a refresh token for a new pair. Each refresh token works once: presenting one
 * that was already used means it was copied, so the whole login is revoked — except
 * within REFRESH_GRACE_MS of its use while its successor is still unused, when the
 * answer carries that same successor again: once, and only to the client that used it
 * (the same address and User-Agent, or the same login device cookie). From anywhere else
 * the old token is a stolen copy.
 */
export async function refresh(deps: SessionDeps, client: Client, token: string): Promise<TokenPair> {
  const claims = token.length <= 4096 ? await deps.tokens.verifyRefresh(token) : null;
  if (!claims) throw invalidRefresh();
  const row = await findRefreshToken(deps.db, claims.jti);
  const now = deps.clock.now();
  if (!row || row.session_id !== claims.sid || row.user_id !== claims.sub) throw invalidRefresh();
  if (row.revoked_at !== null || row.expires_at <= now) throw invalidRefresh();

  const presenter = refreshClient(client, row.user_id);
  const next = await deps.db.transaction().execute(async (trx) => {
    if (row.used_at !== null || !(await consumeRefreshToken(trx, row.id, now, presenter))) return null;
    return insertRefreshToken(trx, row.session_id, now, REFRESH_TOKEN_TTL_MS);
  });
  // Used already (or just now, by a concurrent request): within the grace, to the same client, once, its successor answers.
  const used = next ? null : row.used_at !== null ? row : await findRefreshToken(deps.db, claims.jti);
  const sameClient =
    used?.used_by === presenter.by || (presenter.device !== null && used?.used_device === presenter.device);
  const successor =
    next ??
    (used && used.used_at !== null && now - used.used_at <= REFRESH_GRACE_MS && sameClient
      ? await graceSuccessor(deps, row.id, row.session_id, used.used_at, now)
      : undefined);
  if (!successor) {
    await revokeSession(deps.db, row.session_id, now);
    throw invalidRefresh();
  }
  return {
    access: await deps.tokens.signAccess(row.user_id, row.session_id),
    refresh: await deps.tokens.signRefresh(row.user_id, row.session_id, successor),
  };
}

/** The still unused successor of a token used at `usedAt`, spending the token's one grace answer. */
async function graceSuccessor(deps: Pick<Deps, 'db'>, id: string, sessionId: string, usedAt: number, now: number) {
  const successor = await successorOf(deps.db, sessionId, usedAt + REFRESH_TOKEN_TTL_MS);
  return successor && (await spendRefreshGrace(deps.db, id, now)) ? successor : undefined;
}

/** Ends one login: its access and refresh tokens, and the device keys it issued, stop working at once. */
export async function logout(deps: Pick<Deps, 'db' | 'clock'>, sessionId: string): Promise<void> {
  await revokeSession(deps.db, sessionId, deps.clock.now());
}

/** "Log out everywhere": every login of the user ends, this one included, and every device key. */
export async function logoutEverywhere(deps: Pick<Deps, 'db' | 'clock'>, userId: string): Promise<void> {
  await revokeAllSessions(deps.db, userId, deps.clock.now());
}
