import type { FastifyInstance } from 'fastify';
import type { Transaction } from 'kysely';
import { shownName } from '../../../common/profile-rules.js';
import { allClearMessage } from '../../../common/sms-text.js';
import type { Database, User } from '../../db/schema.js';
import { newId } from '../../lib/ids.js';
import { numbersWithinBudget } from '../alerts/sms-budget.js';
import { type LiveAlert, liveDb } from './repository.js';

/**
 * "I'm safe": marks the alert resolved and, when asked, queues one all-clear SMS to each
 * number the alert went to, in the same transaction, for the dispatcher to send with its
 * retries. Only the first call resolves: a second one changes and sends nothing.
 * Returns the resolution time and how many all-clear SMS this call queued.
 */
export async function resolveAlert(
  app: FastifyInstance,
  alert: LiveAlert,
  owner: User,
  notify: boolean,
): Promise<{ resolvedAt: number; queued: number }> {
  const now = app.clock.now();
  const db = liveDb(app.db);
  const queued = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('alerts')
      .set({ resolved_at: now, last_update_at: now })
      .where('id', '=', alert.id)
      .where('resolved_at', 'is', null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0 || !notify || alert.mode !== 'real') return 0;
    const sent = await trx
      .selectFrom('deliveries')
      .select(['contact_name', 'phone_number'])
      .where('alert_id', '=', alert.id)
      .where('kind', '=', 'alert')
      .orderBy('created_at')
      .execute();
    // All-clears spend the same SMS budget as alerts; a number over it gets none.
    const phones = sent.map((d) => d.phone_number);
    const allowed = app.config.BENCH_NO_RATE_LIMIT
      ? new Set(phones)
      : await numbersWithinBudget(trx as unknown as Transaction<Database>, app.dialect, {
          userId: alert.user_id,
          phones,
          now,
        });
    const recipients = [...new Map(sent.map((d) => [d.phone_number, d])).values()].filter((d) =>
      allowed.has(d.phone_number),
    );
    if (recipients.length === 0) return 0;
    const body = allClearMessage({ language: owner.language === 'en' ? 'en' : 'pt', ownerName: shownName(owner) });
    await trx
      .insertInto('deliveries')
      .values(
        recipients.map((r) => ({
          id: newId(),
          alert_id: alert.id,
          kind: 'all_clear' as const,
          contact_name: r.contact_name,
          phone_number: r.phone_number,
          body,
          status: 'queued' as const,
          attempts: 0,
          next_attempt_at: now,
          claimed_until: null,
          provider_message_id: null,
          last_error: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    return recipients.length;
  });
  if (queued > 0) app.dispatcher.kick();
  const row = await db.selectFrom('alerts').select('resolved_at').where('id', '=', alert.id).executeTakeFirst();
  return { resolvedAt: Number(row?.resolved_at ?? now), queued };
}
