import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PASSWORD_MAX, type TokenPair } from '../../../common/api/accounts.js';
import { detailError } from '../../lib/errors.js';
import { REFRESH_TOKEN_TTL_MS } from '../../plugins/auth.js';
import { throttled } from '../../plugins/security.js';
import { type LoginDevice, newDeviceId, presentedDevice, refreshClient } from './devices.js';
import { verifyPassword } from './passwords.js';
import {
  consumeRefreshToken,
  createSession,
  findByLogin,
  findRefreshToken,
  insertRefreshToken,
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
  app: FastifyInstance,
  throttles: Throttles,
  request: FastifyRequest,
  input: { username: string; password: string },
): Promise<LoginResult> {
  const { password } = input;
  const identifier = input.username;

  const user =
    identifier.length <= IDENTIFIER_MAX && !identifier.includes('\u0000') && password.length <= PASSWORD_MAX * 4
      ? await findByLogin(app.db, identifier)
      : undefined;
  const presented = presentedDevice(request);
  const known =
    presented !== null &&
    user !== undefined &&
    presented.userId === user.id &&
    (await throttles.deviceFailures.read(request)).count < throttles.deviceFailures.max;

  if (!known) {
    const here = await throttles.loginFailures.read(request);
    if (here.count >= throttles.loginFailures.max) throw throttled(here.seconds);
    const delay = loginDelayMs((await throttles.loginFailuresAnywhere.read(request)).count);
    if (delay > 0) await app.clock.sleep(delay);
  }

  const ok = await verifyPassword(user?.password_hash, password);
  if (!user || !ok) {
    if (known) await throttles.deviceFailures.add(request);
    else {
      await throttles.loginFailures.add(request);
      await throttles.loginFailuresAnywhere.add(request);
    }
    throw invalidCredentials();
  }
  // Said only after the right password, so it tells a stranger nothing.
  if (user.email && !user.email_verified) throw detailError(403, SESSION_TEXTS.emailNotVerified, 'email_not_verified');

  const now = app.clock.now();
  const { sessionId, refreshId } = await app.db
    .transaction()
    .execute((trx) => createSession(trx, user.id, now, REFRESH_TOKEN_TTL_MS));
  return {
    tokens: {
      access: await app.tokens.signAccess(user.id, sessionId),
      refresh: await app.tokens.signRefresh(user.id, sessionId, refreshId),
    },
    // A known browser keeps its id; any other gets a new one.
    device: { userId: user.id, deviceId: known && presented ? presented.deviceId : newDeviceId() },
  };
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
export async function refresh(app: FastifyInstance, request: FastifyRequest, token: string): Promise<TokenPair> {
  const claims = token.length <= 4096 ? await app.tokens.verifyRefresh(token) : null;
  if (!claims) throw invalidRefresh();
  const row = await findRefreshToken(app.db, claims.jti);
  const now = app.clock.now();
  if (!row || row.session_id !== claims.sid || row.user_id !== claims.sub) throw invalidRefresh();
  if (row.revoked_at !== null || row.expires_at <= now) throw invalidRefresh();

  const client = refreshClient(request, row.user_id);
  const next = await app.db.transaction().execute(async (trx) => {
    if (row.used_at !== null || !(await consumeRefreshToken(trx, row.id, now, client))) return null;
    return insertRefreshToken(trx, row.session_id, now, REFRESH_TOKEN_TTL_MS);
  });
  // Used already (or just now, by a concurrent request): within the grace, to the same client, once, its successor answers.
  const used = next ? null : row.used_at !== null ? row : await findRefreshToken(app.db, claims.jti);
  const sameClient = used?.used_by === client.by || (client.device !== null && used?.used_device === client.device);
  const successor =
    next ??
    (used && used.used_at !== null && now - used.used_at <= REFRESH_GRACE_MS && sameClient
      ? await graceSuccessor(app, row.id, row.session_id, used.used_at, now)
      : undefined);
  if (!successor) {
    await revokeSession(app.db, row.session_id, now);
    throw invalidRefresh();
  }
  return {
    access: await app.tokens.signAccess(row.user_id, row.session_id),
    refresh: await app.tokens.signRefresh(row.user_id, row.session_id, successor),
  };
}

/** The still unused successor of a token used at `usedAt`, spending the token's one grace answer. */
async function graceSuccessor(app: FastifyInstance, id: string, sessionId: string, usedAt: number, now: number) {
  const successor = await successorOf(app.db, sessionId, usedAt + REFRESH_TOKEN_TTL_MS);
  return successor && (await spendRefreshGrace(app.db, id, now)) ? successor : undefined;
}

/** Ends one login: its access and refresh tokens stop working at once. */
export async function logout(app: FastifyInstance, sessionId: string): Promise<void> {
  await revokeSession(app.db, sessionId, app.clock.now());
}
