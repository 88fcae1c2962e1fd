import type { Transaction } from 'kysely';
import { shownName } from '../../../common/profile-rules.js';
import { allClearMessage } from '../../../common/sms-text.js';
import type { Alert, Database, DeliveryKind, User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { ownerLanguage } from '../owner/index.js';
import { partsOf, queuedDelivery } from './deliveries.js';
import { insertDeliveries } from './deliveries-repository.js';
import { alertRecipients } from './repository.js';
import { numbersWithinBudget } from './sms-budget.js';

/**
 * Queues, in the caller's transaction, `body` once to each number of `recipients` that the
 * SMS budgets allow (the owner's own when the alert was proven), as deliveries of `kind` for
 * the dispatcher to send with its usual retries. Returns how many were queued.
 */
export async function queueWithinBudgets(
  deps: Pick<Deps, 'dialect' | 'config'>,
  trx: Transaction<Database>,
  input: {
    alert: Alert;
    recipients: { contact_name: string; phone_number: string }[];
    body: string;
    kind: DeliveryKind;
    now: number;
  },
): Promise<number> {
  const { alert, body, kind, now } = input;
  const phones = input.recipients.map((d) => d.phone_number);
  const allowed = deps.config.BENCH_NO_RATE_LIMIT
    ? new Set(phones)
    : await numbersWithinBudget(trx, deps.dialect, {
        userId: alert.user_id,
        phones,
        now,
        proven: alert.proven === 1,
        parts: partsOf(body),
      });
  const recipients = [...new Map(input.recipients.map((d) => [d.phone_number, d])).values()].filter((d) =>
    allowed.has(d.phone_number),
  );
  await insertDeliveries(
    trx,
    recipients.map((recipient) => queuedDelivery({ alertId: alert.id, recipient, body, now, kind })),
  );
  return recipients.length;
}

/** One all-clear SMS ("I'm safe") to each number the alert went to, within the SMS budgets. */
export async function queueAllClear(
  deps: Pick<Deps, 'dialect' | 'config'>,
  trx: Transaction<Database>,
  alert: Alert,
  owner: User,
  now: number,
): Promise<number> {
  const recipients = await alertRecipients(trx, alert.id);
  const body = allClearMessage({ language: ownerLanguage(owner), ownerName: shownName(owner) });
  return queueWithinBudgets(deps, trx, { alert, recipients, body, kind: 'all_clear', now });
}
