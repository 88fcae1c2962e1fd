import type { z } from 'zod';
import type { pushSubscription } from '../../../common/api/checkins.js';
import type { Deps } from '../../lib/deps.js';
import { detailError, fieldErrors } from '../../lib/errors.js';
import { outboundUrlProblem } from '../../lib/outbound.js';
import type { PushMessage } from '../../providers/push/port.js';
import { lockUser } from '../contacts/index.js';
import { deviceKeyRow } from '../owner/index.js';
import {
  deleteSubscription,
  dropDeviceSubscriptions,
  otherSubscriptions,
  subscriptionsOf,
  upsertSubscription,
} from './repository.js';

/** Devices an owner gets reminders on: a fifth is refused (never one of theirs dropped). */
export const PUSH_SUBSCRIPTIONS_MAX = 4;

const FULL = `Check-in reminders go to ${PUSH_SUBSCRIPTIONS_MAX} devices at most: remove one of your devices in setup first.`;
const DEVICE_KEY_REQUIRED =
  "Reminders go to a device: send this device's key (X-Alerta-Device-Key), which a signed-in session issues at POST /api/users/me/device-keys/.";

/**
 * The id of the owner's device key a request carries (`X-Alerta-Device-Key`); 403
 * `device_key_required` without one: a subscription belongs to a device the owner can see and
 * remove, so a session alone makes none.
 */
export async function deviceKeyOf(deps: Pick<Deps, 'db'>, userId: string, key: unknown): Promise<string> {
  const row = await deviceKeyRow(deps.db, key);
  if (row?.user_id !== userId) throw detailError(403, DEVICE_KEY_REQUIRED, 'device_key_required');
  return row.id;
}

/**
 * Registers the browser of one of the owner's devices for reminders (the route has checked the
 * owner's proof). The endpoint is checked like any URL the server will call (https, a public
 * address); the same endpoint again updates its keys; the device's earlier subscription is
 * replaced; a new device past PUSH_SUBSCRIPTIONS_MAX is 409 `push_subscriptions_full`.
 */
export async function subscribePush(
  deps: Pick<Deps, 'db' | 'dialect' | 'clock' | 'config'>,
  userId: string,
  deviceKeyId: string,
  subscription: z.output<typeof pushSubscription>,
): Promise<void> {
  const problem = outboundUrlProblem(subscription.endpoint, deps.config.PUSH_ALLOW_PRIVATE);
  if (problem) throw fieldErrors({ endpoint: [problem] });
  const { endpoint, keys } = subscription;
  await deps.db.transaction().execute(async (trx) => {
    // Two devices subscribing at once are counted one after the other.
    await lockUser(trx, deps.dialect, userId);
    await dropDeviceSubscriptions(trx, deviceKeyId, endpoint);
    if ((await otherSubscriptions(trx, userId, endpoint)) >= PUSH_SUBSCRIPTIONS_MAX) {
      throw detailError(409, FULL, 'push_subscriptions_full');
    }
    await upsertSubscription(trx, { userId, deviceKeyId, endpoint, keys, now: deps.clock.now() });
  });
}

/**
 * Sends `message` to every browser of the owner, all at once; a subscription the push service
 * says is gone (404, 410) is deleted, any other failure logged (the e-mail still reminds).
 */
export async function pushToOwner(
  deps: Pick<Deps, 'db' | 'push' | 'log'>,
  userId: string,
  message: PushMessage,
): Promise<void> {
  const targets = await subscriptionsOf(deps.db, userId);
  await Promise.all(
    targets.map(async (target) => {
      try {
        const sent = await deps.push.send(
          { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
          message,
        );
        if (sent === 'gone') await deleteSubscription(deps.db, target.id);
      } catch (error) {
        deps.log.warn({ reason: (error as Error).message }, 'check-in reminder push could not be sent');
      }
    }),
  );
}
