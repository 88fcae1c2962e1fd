import type { Deps } from '../../lib/deps.js';
import { cancelAtProvider } from '../billing/index.js';
import { deleteUser } from './repository.js';

/**
 * Deletes an account and everything that belongs to it in one statement: contacts,
 * subscriptions, alerts and their deliveries, tokens and sessions all hang off the user
 * with ON DELETE CASCADE. Access tokens stop working at once, because the auth hook
 * finds no user behind them. Steps that must happen first (e.g. cancelling the
 * subscription at the payment provider) belong at the top of this function.
 */
export async function deleteAccount(
  deps: Pick<Deps, 'db' | 'clock' | 'payments' | 'log'>,
  userId: string,
): Promise<void> {
  // First, so that a failure at the provider keeps the account instead of billing a deleted one.
  await cancelAtProvider(deps, userId);
  await deleteUser(deps.db, userId);
}
