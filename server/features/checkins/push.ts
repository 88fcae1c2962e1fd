import type { z } from 'zod';
import type { pushSubscription } from '../../../common/api/checkins.js';
import { keepNewest } from '../../db/keep-newest.js';
import type { Deps } from '../../lib/deps.js';
import { fieldErrors } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { outboundUrlProblem } from '../../lib/outbound.js';
import type { PushMessage } from '../../providers/push/port.js';

/** Browsers an owner gets reminders on; a new one past this drops the oldest. */
export const PUSH_SUBSCRIPTIONS_MAX = 5;

/**
 * Registers a browser for the owner's reminders. The endpoint comes from whoever holds the
 * link, so it is checked like any URL the server will call (https, a public address); the
 * same endpoint again updates its keys.
 */
export async function subscribePush(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  userId: string,
  subscription: z.output<typeof pushSubscription>,
): Promise<void> {
  const problem = outboundUrlProblem(subscription.endpoint, deps.config.PUSH_ALLOW_PRIVATE);
  if (problem) throw fieldErrors({ endpoint: [problem] });
  const { endpoint, keys } = subscription;
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('push_subscriptions')
      .values({
        id: newId(),
        user_id: userId,
        endpoint,
        p256dh: keys.p256dh,
        auth: keys.auth,
        created_at: deps.clock.now(),
      })
      .onConflict((oc) => oc.columns(['user_id', 'endpoint']).doUpdateSet({ p256dh: keys.p256dh, auth: keys.auth }))
      .execute();
    await keepNewest(trx, 'push_subscriptions', userId, PUSH_SUBSCRIPTIONS_MAX);
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
  const targets = await deps.db.selectFrom('push_subscriptions').selectAll().where('user_id', '=', userId).execute();
  await Promise.all(
    targets.map(async (target) => {
      try {
        const sent = await deps.push.send(
          { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
          message,
        );
        if (sent === 'gone') await deps.db.deleteFrom('push_subscriptions').where('id', '=', target.id).execute();
      } catch (error) {
        deps.log.warn({ reason: (error as Error).message }, 'check-in reminder push could not be sent');
      }
    }),
  );
}
