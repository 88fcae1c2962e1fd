import type { FastifyInstance } from 'fastify';
import type { Db } from '../server/db/schema.js';
import { queuedDelivery } from '../server/features/alerts/deliveries.js';
import { insertAlert } from '../server/features/alerts/repository.js';
import { benchAlert } from './fixtures.js';

/**
 * The floor of the alert POST's throughput: the same alert written by one direct transaction
 * (the alert row and one delivery per contact, by the route's own repository), with no HTTP, no
 * validation, no budget and no limit, from `concurrency` loops for `seconds`. The deliveries are
 * stored as sent, so the dispatcher has nothing to do meanwhile. Returns transactions per second.
 */
export async function directWrites(
  app: FastifyInstance,
  token: string,
  seconds: number,
  concurrency: number,
): Promise<number> {
  // The SMS the POST's run left queued are sent first: the floor runs on an idle server, as the
  // POST began (a backlog being sent meanwhile made the floor slower and the ratio better).
  await app.dispatcher.drain();
  const owner = await app.db.selectFrom('users').select('id').where('token', '=', token).executeTakeFirstOrThrow();
  const write = await sentAlertWriter(app, owner.id);
  const started = performance.now();
  const until = started + seconds * 1000;
  let writes = 0;
  const loop = async () => {
    while (performance.now() < until) {
      await app.db.transaction().execute((trx) => write(trx, app.clock.now()));
      writes += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return Math.round(writes / ((performance.now() - started) / 1000));
}

/**
 * What writes one of the owner's alerts as the floor does, in the transaction it is given: the
 * alert row and one delivery per contact through the route's own repository, stored as sent.
 */
export async function sentAlertWriter(app: FastifyInstance, userId: string) {
  const contacts = await app.db
    .selectFrom('contacts')
    .select(['name as contact_name', 'phone_number'])
    .where('user_id', '=', userId)
    .execute();
  const message = 'bench needs help.';
  return (db: Db, now: number) => {
    const alert = benchAlert(userId, message, now);
    const deliveries = contacts.map((recipient) => ({
      ...queuedDelivery({ alertId: alert.id, recipient, body: message, now }),
      status: 'sent' as const,
    }));
    return insertAlert(db, alert, deliveries, { dialect: app.dialect });
  };
}
