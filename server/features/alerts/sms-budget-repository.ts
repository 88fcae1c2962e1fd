import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';

// The reads the SMS budgets decide by (sms-budget.ts).

/**
 * The read of the SMS and SMS parts counted for each number: of one account's proven or
 * link-only alerts since `mineSince` (`mine_*`), and of all accounts and links since `allSince`
 * (`all_*`), in one statement; `alerted_n`: that account's real alerts of the same proof that
 * reached the number since `allSince` (their own SMS, not tests, all-clears or escalations).
 * The numbers that said STOP (`sms_opt_outs`) come in the same statement, a row each with
 * `opted_out` 1: on PostgreSQL one round trip less while the numbers' locks are held.
 */
export function spentByNumber(
  db: Db,
  phones: string[],
  window: { mineSince: number; allSince: number },
  of: { userId: string; proven: boolean },
) {
  const { mineSince, allSince } = window;
  return db
    .selectFrom('deliveries')
    .innerJoin('alerts', 'alerts.id', 'deliveries.alert_id')
    .select((eb) => {
      const isMine = eb.and([
        eb('deliveries.created_at', '>', mineSince),
        eb('alerts.user_id', '=', of.userId),
        eb('alerts.proven', '=', of.proven ? 1 : 0),
      ]);
      const isAll = eb('deliveries.created_at', '>', allSince);
      const isMyAlert = eb.and([
        isAll,
        eb('alerts.user_id', '=', of.userId),
        eb('alerts.proven', '=', of.proven ? 1 : 0),
        eb('alerts.mode', '=', 'real'),
        eb('deliveries.kind', '=', 'alert'),
      ]);
      const counted = (when: typeof isAll, value: 'one' | 'parts') =>
        eb.fn.sum<number>(
          eb
            .case()
            .when(when)
            .then(value === 'one' ? sql.lit(1) : eb.ref('deliveries.parts'))
            .else(sql.lit(0))
            .end(),
        );
      return [
        'deliveries.phone_number as phone',
        counted(isMine, 'one').as('mine_n'),
        counted(isMine, 'parts').as('mine_p'),
        counted(isAll, 'one').as('all_n'),
        counted(isAll, 'parts').as('all_p'),
        counted(isMyAlert, 'one').as('alerted_n'),
        sql.lit(0).as('opted_out'),
      ];
    })
    .where('deliveries.phone_number', 'in', phones)
    .where('deliveries.created_at', '>', Math.min(mineSince, allSince))
    .where('deliveries.status', 'not in', ['withheld', 'opted_out'])
    .groupBy('deliveries.phone_number')
    .unionAll(
      db
        .selectFrom('sms_opt_outs')
        .select([
          'sms_opt_outs.phone_number as phone',
          sql<number>`0`.as('mine_n'),
          sql<number>`0`.as('mine_p'),
          sql<number>`0`.as('all_n'),
          sql<number>`0`.as('all_p'),
          sql<number>`0`.as('alerted_n'),
          sql.lit(1).as('opted_out'),
        ])
        .where('sms_opt_outs.phone_number', 'in', phones),
    )
    .execute();
}

/** A row of `spentByNumber`. */
export type SpentRow = Awaited<ReturnType<typeof spentByNumber>>[number];

/**
 * Which of `phones` are `userId`'s contacts that confirmed the account, and, for a proven alert,
 * those it had as contacts at `before` already.
 */
export async function contactNumbersInTouch(
  db: Db,
  of: { userId: string; phones: string[]; before: number; proven: boolean },
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('contacts')
    .select('phone_number as phone')
    .where('user_id', '=', of.userId)
    .where('phone_number', 'in', of.phones)
    .where((eb) =>
      of.proven
        ? eb.or([eb('confirmed_at', 'is not', null), eb('created_at', '<=', of.before)])
        : eb('confirmed_at', 'is not', null),
    )
    .execute();
  return new Set(rows.map((row) => row.phone));
}
