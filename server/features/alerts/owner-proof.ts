import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { alertsApi } from '../../../common/api/alerts.js';
import { served } from '../../../common/api/shared.js';
import { newId, randomToken } from '../../lib/ids.js';
import { hashSecret } from '../accounts/repository.js';
import { ownerByToken } from './repository.js';

/**
 * The owner's proof beside the link (DESIGN.md §6): an alert request that carries the
 * owner's session (`Authorization: Bearer <access>`) or a device key that session issued
 * to the page (`X-Alerta-Device-Key`) is the owner's. A proof that does not check out is
 * never an error: the request is simply link-only.
 */

/** The header the emergency page sends its device key in (Node lowercases header names). */
const DEVICE_KEY_HEADER = 'x-alerta-device-key';
/** Device keys kept per account: a new one drops the oldest. */
export const DEVICE_KEYS_PER_USER = 20;
/** A device key is 32 random bytes, base64url (43 characters): anything far longer is not one. */
const MAX_KEY_LENGTH = 128;

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The user a device key was issued to, else null; stamps its last use. */
async function deviceKeyUser(app: FastifyInstance, key: string | undefined): Promise<string | null> {
  if (!key || key.length > MAX_KEY_LENGTH) return null;
  const hash = hashSecret(key);
  const row = await app.db.selectFrom('device_keys').select('user_id').where('key_hash', '=', hash).executeTakeFirst();
  if (!row) return null;
  await app.db.updateTable('device_keys').set({ last_used_at: app.clock.now() }).where('key_hash', '=', hash).execute();
  return row.user_id;
}

/** Checked once per request (the address ceiling and the route may both ask). */
const checked = new WeakMap<FastifyRequest, Promise<Set<string>>>();

/** The users whose proof the request carries, verified (empty without any). */
function provenUsers(app: FastifyInstance, request: FastifyRequest): Promise<Set<string>> {
  let users = checked.get(request);
  if (!users) {
    users = Promise.all([
      app.liveSession(headerValue(request.headers.authorization)).then((session) => session?.user.id ?? null),
      deviceKeyUser(app, headerValue(request.headers[DEVICE_KEY_HEADER])),
    ]).then((ids) => new Set(ids.filter((id): id is string => id !== null)));
    checked.set(request, users);
  }
  return users;
}

/** Whether the request carries a verified proof of `userId`. */
export async function carriesOwnerProof(
  app: FastifyInstance,
  request: FastifyRequest,
  userId: string,
): Promise<boolean> {
  if (!request.headers.authorization && !request.headers[DEVICE_KEY_HEADER]) return false;
  return (await provenUsers(app, request)).has(userId);
}

/**
 * Whether the request carries a verified proof of the owner of the token in its path: what
 * lets the owner's alert past the per-address ceiling. Without a proof header nothing is read.
 */
export async function provenForPathToken(app: FastifyInstance, request: FastifyRequest): Promise<boolean> {
  if (!request.headers.authorization && !request.headers[DEVICE_KEY_HEADER]) return false;
  const token = (request.params as { token?: unknown }).token;
  if (typeof token !== 'string' || !token) return false;
  const owner = await ownerByToken(app.db, token);
  return owner ? carriesOwnerProof(app, request, owner.id) : false;
}

/** Issues a device key to `userId`, keeping at most DEVICE_KEYS_PER_USER; the key itself is returned once, never stored. */
export async function issueDeviceKey(app: FastifyInstance, userId: string): Promise<string> {
  const key = randomToken(32);
  const now = app.clock.now();
  await app.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('device_keys')
      .values({ id: newId(), user_id: userId, key_hash: hashSecret(key), created_at: now, last_used_at: null })
      .execute();
    const kept = trx
      .selectFrom('device_keys')
      .select('id')
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(DEVICE_KEYS_PER_USER);
    await trx
      .deleteFrom('device_keys')
      .where('user_id', '=', userId)
      // The newest keys as a derived table: both databases take a LIMIT there.
      .where('id', 'not in', (eb) => eb.selectFrom(kept.as('kept')).select('kept.id'))
      .execute();
  });
  return key;
}

/** `POST /api/users/me/device-keys/`: a device key for the signed-in owner's emergency page. */
export default async function deviceKeyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.route({
    ...served(alertsApi.deviceKey),
    onRequest: app.authenticate,
    handler: async (request, reply) => reply.code(201).send({ device_key: await issueDeviceKey(app, request.user.id) }),
  });
}
