import { createHash } from 'node:crypto';
import { inTransaction } from '../../db/grouped-transactions.js';
import type { Db, NewUser, OneTimeTokensTable, User, UserUpdate } from '../../db/schema.js';
import { newId, randomToken } from '../../lib/ids.js';

/** The database, or a transaction on it: every function here works inside either. */
export type OneTimePurpose = OneTimeTokensTable['purpose'];

/** Only the SHA-256 of a one-time secret is stored, so a database leak holds no usable link. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** The user whose username or e-mail is `identifier` (already lowercased). */
export function findByLogin(db: Db, identifier: string): Promise<User | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb('username', '=', identifier), eb('email', '=', identifier)]))
    .executeTakeFirst();
}

export function findByEmail(db: Db, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findById(db: Db, id: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Which of the given username and e-mail are already taken. */
export async function takenFields(db: Db, username: string | null, email: string | null) {
  const rows = await db
    .selectFrom('users')
    .select(['username', 'email'])
    .where((eb) =>
      eb.or([...(username ? [eb('username', '=', username)] : []), ...(email ? [eb('email', '=', email)] : [])]),
    )
    .execute();
  return {
    username: username !== null && rows.some((row) => row.username === username),
    email: email !== null && rows.some((row) => row.email === email),
  };
}

/** Changes fields of one user. */
export async function updateUser(db: Db, id: string, changes: UserUpdate): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}

/** Deletes a user; the schema's cascades remove everything of theirs. */
export async function deleteUser(db: Db, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

/** Replaces the personal alert token of a user who has one. */
export async function replaceToken(db: Db, id: string, token: string): Promise<void> {
  await db.updateTable('users').set({ token }).where('id', '=', id).where('token', 'is not', null).execute();
}

export async function insertUser(db: Db, user: NewUser): Promise<void> {
  await db.insertInto('users').values(user).execute();
}

/**
 * Stores a new one-time secret (e-mail verification key, reset token, "this wasn't me" key) for
 * the user and returns the secret itself, which only ever leaves in the e-mail: random, or
 * derived from the row's id by `secretOf` (so a later e-mail can carry it again).
 */
export async function createOneTimeToken(
  db: Db,
  options: {
    userId: string;
    purpose: OneTimePurpose;
    now: number;
    ttlMs: number;
    secretOf?: (id: string) => string;
  },
): Promise<string> {
  const id = newId();
  const secret = options.secretOf ? options.secretOf(id) : randomToken(32);
  await db
    .insertInto('one_time_tokens')
    .values({
      id,
      token_hash: hashSecret(secret),
      user_id: options.userId,
      purpose: options.purpose,
      expires_at: options.now + options.ttlMs,
      used_at: null,
      created_at: options.now,
    })
    .execute();
  return secret;
}

/** The stored row of a one-time secret, if it exists for that purpose. */
export function findOneTimeToken(db: Db, secret: string, purpose: OneTimePurpose) {
  return db
    .selectFrom('one_time_tokens')
    .selectAll()
    .where('token_hash', '=', hashSecret(secret))
    .where('purpose', '=', purpose)
    .executeTakeFirst();
}

/** The user's one-time secrets of `purpose`, newest first. */
export function oneTimeTokensOf(db: Db, userId: string, purpose: OneTimePurpose) {
  return db
    .selectFrom('one_time_tokens')
    .select(['id', 'token_hash', 'expires_at', 'used_at'])
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .orderBy('created_at', 'desc')
    .execute();
}

/** Deletes one-time secrets by id. */
export async function deleteOneTimeTokens(db: Db, ids: string[]): Promise<void> {
  if (ids.length > 0) await db.deleteFrom('one_time_tokens').where('id', 'in', ids).execute();
}

/** Marks one token used; false when another request used it first. */
export async function consumeOneTimeToken(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('one_time_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks every unused token of a purpose used, e.g. all reset links once one has worked. */
export async function consumeAllOneTimeTokens(db: Db, userId: string, purpose: OneTimePurpose, now: number) {
  await db
    .updateTable('one_time_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

/** Starts a login (a session) with its first refresh token; returns both ids. */
export async function createSession(db: Db, userId: string, now: number, refreshTtlMs: number) {
  const sessionId = newId();
  const refreshId = newId();
  await db
    .insertInto('sessions')
    .values({ id: sessionId, user_id: userId, created_at: now, revoked_at: null })
    .execute();
  await db
    .insertInto('refresh_tokens')
    .values({ id: refreshId, session_id: sessionId, expires_at: now + refreshTtlMs, used_at: null })
    .execute();
  return { sessionId, refreshId };
}

/** A refresh token with its session, for rotation. */
export function findRefreshToken(db: Db, jti: string) {
  return db
    .selectFrom('refresh_tokens')
    .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
    .select([
      'refresh_tokens.id',
      'refresh_tokens.session_id',
      'refresh_tokens.expires_at',
      'refresh_tokens.used_at',
      'refresh_tokens.used_by',
      'refresh_tokens.used_device',
      'refresh_tokens.grace_used_at',
      'sessions.user_id',
      'sessions.revoked_at',
    ])
    .where('refresh_tokens.id', '=', jti)
    .executeTakeFirst();
}

/** Who presented a refresh token: a hash of its address and User-Agent, and its login device cookie's id. */
export interface RefreshClient {
  by: string;
  device: string | null;
}

/** Marks a refresh token used by `client`; false when it already was (a replay, or a race lost). */
export async function consumeRefreshToken(db: Db, id: string, now: number, client: RefreshClient): Promise<boolean> {
  const result = await db
    .updateTable('refresh_tokens')
    .set({ used_at: now, used_by: client.by, used_device: client.device })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertRefreshToken(db: Db, sessionId: string, now: number, ttlMs: number): Promise<string> {
  const id = newId();
  await db
    .insertInto('refresh_tokens')
    .values({ id, session_id: sessionId, expires_at: now + ttlMs, used_at: null })
    .execute();
  return id;
}

/** Spends the one answer the refresh grace gives a replaced token; false when it was spent already. */
export async function spendRefreshGrace(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('refresh_tokens')
    .set({ grace_used_at: now })
    .where('id', '=', id)
    .where('grace_used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The refresh token that replaced another, while it is still unused: the session's only
 * unused token, issued in that same rotation (so it expires at `expiresAt`).
 */
export async function successorOf(db: Db, sessionId: string, expiresAt: number): Promise<string | undefined> {
  const rows = await db
    .selectFrom('refresh_tokens')
    .select(['id', 'expires_at'])
    .where('session_id', '=', sessionId)
    .where('used_at', 'is', null)
    .execute();
  const [only] = rows;
  return rows.length === 1 && only && Number(only.expires_at) === expiresAt ? only.id : undefined;
}

/** Ends one login, and the device keys it gave pages (a logout, or a refresh token stolen). */
export async function revokeSession(db: Db, sessionId: string, now: number): Promise<void> {
  await inTransaction(db, async (trx) => {
    await endSessionDeviceKeys(trx, sessionId);
    await trx
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .execute();
  });
}

/**
 * Ends every login of the user and every device key: an account recovered from someone else
 * keeps none of theirs. `except` keeps one login and the keys it issued (the owner's own, as she
 * changes her password).
 */
export async function revokeAllSessions(db: Db, userId: string, now: number, except?: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .$if(except !== undefined, (query) => query.where('id', '!=', except as string))
      .execute();
    await endAllDeviceKeys(trx, userId, except);
  });
}

/** Ends the keys one login issued: logging out on a device ends what it gave that device's page. */
export async function endSessionDeviceKeys(db: Db, sessionId: string): Promise<void> {
  await db.deleteFrom('device_keys').where('session_id', '=', sessionId).execute();
}

/** Ends every key of the owner (but those `except` issued): nobody keeps a proof from before. */
export async function endAllDeviceKeys(db: Db, userId: string, except?: string): Promise<void> {
  await db
    .deleteFrom('device_keys')
    .where('user_id', '=', userId)
    .$if(except !== undefined, (query) =>
      query.where((eb) => eb.or([eb('session_id', 'is', null), eb('session_id', '!=', except as string)])),
    )
    .execute();
}

/** The owner's device keys as Setup lists them. */
export function deviceKeysOf(db: Db, userId: string) {
  return db
    .selectFrom('device_keys')
    .select(['id', 'name', 'created_at', 'last_used_at', 'session_id'])
    .where('user_id', '=', userId)
    .execute();
}

/** Deletes one of the owner's device keys; false when `id` names none of theirs. */
export async function deleteDeviceKey(db: Db, userId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('device_keys')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
