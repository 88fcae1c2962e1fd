import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PASSWORD_MAX, type TokenPair } from '../../../common/api/accounts.js';
import { detailError } from '../../lib/errors.js';
import { REFRESH_TOKEN_TTL_MS } from '../../plugins/auth.js';
import { throttled } from '../../plugins/security.js';
import { verifyPassword } from './passwords.js';
import {
  consumeRefreshToken,
  createSession,
  findByLogin,
  findRefreshToken,
  insertRefreshToken,
  revokeSession,
  successorOf,
} from './repository.js';
import type { Throttles } from './throttle.js';

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

/**
 * Logs in by username or e-mail (case-insensitive): a new session with its first
 * refresh token. Failures are counted per identifier as typed and client address (the
 * fifth in 15 minutes blocks that address for the rest of the window), and per identifier
 * from everywhere (past 20 in an hour, one try every 30 seconds). Keyed by what was typed,
 * never by the account, so the counters say nothing of which e-mail belongs to which username.
 */
export async function login(
  app: FastifyInstance,
  throttles: Throttles,
  request: FastifyRequest,
  input: { username: string; password: string },
): Promise<TokenPair> {
  const { password } = input;
  const identifier = input.username;

  const here = await throttles.loginFailures.read(request);
  if (here.count >= throttles.loginFailures.max) throw throttled(here.seconds);
  const anywhere = await throttles.loginFailuresAnywhere.read(request);
  if (anywhere.count >= throttles.loginFailuresAnywhere.max) await throttles.loginBackoff.take(request);

  const user =
    identifier.length <= IDENTIFIER_MAX && !identifier.includes('\u0000') && password.length <= PASSWORD_MAX * 4
      ? await findByLogin(app.db, identifier)
      : undefined;
  const ok = await verifyPassword(user?.password_hash, password);
  if (!user || !ok) {
    await throttles.loginFailures.add(request);
    const failures = await throttles.loginFailuresAnywhere.add(request);
    if (failures >= throttles.loginFailuresAnywhere.max) await throttles.loginBackoff.add(request);
    throw invalidCredentials();
  }
  // Said only after the right password, so it tells a stranger nothing.
  if (user.email && !user.email_verified) throw detailError(403, SESSION_TEXTS.emailNotVerified, 'email_not_verified');

  const now = app.clock.now();
  const { sessionId, refreshId } = await app.db
    .transaction()
    .execute((trx) => createSession(trx, user.id, now, REFRESH_TOKEN_TTL_MS));
  return {
    access: await app.tokens.signAccess(user.id, sessionId),
    refresh: await app.tokens.signRefresh(user.id, sessionId, refreshId),
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
 * answer carries that same successor again.
 */
export async function refresh(app: FastifyInstance, token: string): Promise<TokenPair> {
  const claims = token.length <= 4096 ? await app.tokens.verifyRefresh(token) : null;
  if (!claims) throw invalidRefresh();
  const row = await findRefreshToken(app.db, claims.jti);
  const now = app.clock.now();
  if (!row || row.session_id !== claims.sid || row.user_id !== claims.sub) throw invalidRefresh();
  if (row.revoked_at !== null || row.expires_at <= now) throw invalidRefresh();

  const next = await app.db.transaction().execute(async (trx) => {
    if (row.used_at !== null || !(await consumeRefreshToken(trx, row.id, now))) return null;
    return insertRefreshToken(trx, row.session_id, now, REFRESH_TOKEN_TTL_MS);
  });
  // Used already (or just now, by a concurrent request): within the grace its successor answers.
  const usedAt = next ? null : (row.used_at ?? (await findRefreshToken(app.db, claims.jti))?.used_at ?? null);
  const successor =
    next ??
    (usedAt !== null && now - usedAt <= REFRESH_GRACE_MS
      ? await successorOf(app.db, row.session_id, usedAt + REFRESH_TOKEN_TTL_MS)
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

/** Ends one login: its access and refresh tokens stop working at once. */
export async function logout(app: FastifyInstance, sessionId: string): Promise<void> {
  await revokeSession(app.db, sessionId, app.clock.now());
}
