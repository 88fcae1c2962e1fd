import { keepNewest } from '../../db/keep-newest.js';
import type { Deps } from '../../lib/deps.js';
import { randomToken } from '../../lib/ids.js';
import { hashSecret } from '../accounts/index.js';
import { deviceKeyByHash, insertDeviceKey, ownerByToken, stampDeviceKey } from './repository.js';

/**
 * The owner's proof beside the link (DESIGN.md §6): an alert request that carries the
 * owner's session (`Authorization: Bearer <access>`) or a device key that session issued
 * to the page (`X-Alerta-Device-Key`) is the owner's. A proof that does not check out is
 * never an error: the request is simply link-only. The routes read the headers
 * (proof-routes.ts); the checks here take their values.
 */

/** Device keys kept per account: a new one drops the oldest. */
export const DEVICE_KEYS_PER_USER = 20;
/** A device key is 32 random bytes, base64url (43 characters): anything far longer is not one. */
const MAX_KEY_LENGTH = 128;

/** The owner's proof a request carries, as sent (either may be missing). */
export interface OwnerProof {
  /** The `Authorization` header. */
  authorization: string | undefined;
  /** The device key header. */
  deviceKey: string | undefined;
}

/** What checking a proof needs: the device keys, and the sessions the access tokens name. */
export type ProofDeps = Pick<Deps, 'db' | 'clock' | 'liveSession'>;

/** Whether any proof was sent at all: without one nothing is looked up. */
export const sentProof = (proof: OwnerProof) => Boolean(proof.authorization || proof.deviceKey);

/** The device key row a request's key names (its id and the user it was issued to); undefined for anything else. */
export function deviceKeyRow(db: Deps['db'], key: unknown): Promise<{ id: string; user_id: string } | undefined> {
  if (typeof key !== 'string' || !key || key.length > MAX_KEY_LENGTH) return Promise.resolve(undefined);
  return deviceKeyByHash(db, hashSecret(key));
}

/** The user a device key was issued to, else null; stamps its last use. */
async function deviceKeyUser(deps: Pick<Deps, 'db' | 'clock'>, key: string | undefined): Promise<string | null> {
  const row = await deviceKeyRow(deps.db, key);
  if (!row) return null;
  await stampDeviceKey(deps.db, hashSecret(key as string), deps.clock.now());
  return row.user_id;
}

/** The users whose proof was sent, verified (empty without any). */
export async function provenUsers(deps: ProofDeps, proof: OwnerProof): Promise<Set<string>> {
  const ids = await Promise.all([
    deps.liveSession(proof.authorization).then((session) => session?.user.id ?? null),
    deviceKeyUser(deps, proof.deviceKey),
  ]);
  return new Set(ids.filter((id): id is string => id !== null));
}

/** The id of a token's owner, else null: whose proof a request on the token's path may carry. */
export async function tokenOwnerId(deps: Pick<Deps, 'db'>, token: string): Promise<string | null> {
  if (!token) return null;
  return (await ownerByToken(deps.db, token))?.id ?? null;
}

/** Where a device key goes: the login asking for it (its logout ends the key) and the device's name for the owner's list. */
export interface IssuedTo {
  sessionId: string;
  name: string | null;
}

/**
 * Issues a device key to `userId`, keeping at most DEVICE_KEYS_PER_USER; the key itself is
 * returned once, never stored. Tied to the login `to` names, when given (accounts/device-keys.ts).
 */
export async function issueDeviceKey(
  deps: Pick<Deps, 'db' | 'clock'>,
  userId: string,
  to: IssuedTo | null = null,
): Promise<string> {
  const key = randomToken(32);
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await insertDeviceKey(trx, { userId, keyHash: hashSecret(key), now, to });
    await keepNewest(trx, 'device_keys', userId, DEVICE_KEYS_PER_USER);
  });
  return key;
}
