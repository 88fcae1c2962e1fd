import type { FastifyInstance } from 'fastify';

/**
 * Deletes an account and everything that belongs to it in one transaction: contacts,
 * subscriptions, alerts and their deliveries, tokens and sessions all hang off the user
 * with ON DELETE CASCADE. Access tokens stop working at once, because the auth hook
 * finds no user behind them. Steps that must happen first (e.g. cancelling the
 * subscription at the payment provider) belong at the top of this function.
 */
export async function deleteAccount(app: FastifyInstance, userId: string): Promise<void> {
  await app.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('users').where('id', '=', userId).execute();
  });
}
