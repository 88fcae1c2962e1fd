import type { Transaction } from 'kysely';
import { shownName } from '../../../common/profile-rules.js';
import { allClearMessage } from '../../../common/sms-text.js';
import type { Alert, Database, User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { partsOf, queuedDelivery } from './deliveries.js';
import { ownerLanguage } from './owners.js';
import { alertRecipients, insertDeliveries } from './repository.js';
import { numbersWithinBudget } from './sms-budget.js';

/**
 * Queues, in the caller's transaction, one all-clear SMS ("I'm safe") to each number the
 * alert went to, for the dispatcher to send with its usual retries. All-clears spend the
 * same SMS budgets as alerts (the owner's own when the alert was proven): a number over
 * them gets none. Returns how many were queued.
 */
export async function queueAllClear(
  deps: Pick<Deps, 'dialect' | 'config'>,
  trx: Transaction<Database>,
  alert: Alert,
  owner: User,
  now: number,
): Promise<number> {
  const sent = await alertRecipients(trx, alert.id);
  const phones = sent.map((d) => d.phone_number);
  const body = allClearMessage({ language: ownerLanguage(owner), ownerName: shownName(owner) });
  const allowed = deps.config.BENCH_NO_RATE_LIMIT
    ? new Set(phones)
    : await numbersWithinBudget(trx, deps.dialect, {
        userId: alert.user_id,
        phones,
        now,
        proven: alert.proven === 1,
        parts: partsOf(body),
      });
  const recipients = [...new Map(sent.map((d) => [d.phone_number, d])).values()].filter((d) =>
    allowed.has(d.phone_number),
  );
  await insertDeliveries(
    trx,
    recipients.map((recipient) => queuedDelivery({ alertId: alert.id, recipient, body, now, kind: 'all_clear' })),
  );
  return recipients.length;
}
