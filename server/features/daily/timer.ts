import type { DailyCheckin, User } from '../../db/schema.js';
import { setTimer, type TimerHandler } from '../../lib/timers.js';
import { findById } from '../accounts/repository.js';
import { type DailyFireDeps, DailyMoved, sendMissedDaily } from './fire.js';
import { remindDaily } from './reminder.js';
import { dailyOf, signOfLifeAfter } from './repository.js';
import { alarmAt, caughtUp, DAILY_TIMER } from './schedule.js';
import { recordSignOfLife } from './service.js';

/**
 * Each owner's daily timer. At the due time it reminds them (once per due time, whichever
 * process runs it); at the end of the grace it sends the `missed_daily` alert, the row moved on
 * to the next due time in the same transaction, only while nothing changed since it was read,
 * so an "I'm OK" that committed first wins and a run taken over after a crash sends nothing
 * twice. An alert or check-in the owner sent since the last sign of life counts as one. A server
 * down past several due times sends one alert, naming the real last sign of life, and the
 * schedule goes on from the last day missed.
 */
export function dailyTimer(deps: DailyFireDeps): TimerHandler {
  const { db, clock } = deps;
  const again = (userId: string, dueAt: number) =>
    setTimer(db, { kind: DAILY_TIMER, subject: userId, dueAt, now: clock.now() });

  async function remind(row: DailyCheckin, user: User, dueAt: number) {
    const first = await db
      .updateTable('daily_checkins')
      .set({ reminded_due_at: dueAt })
      .where('user_id', '=', user.id)
      .where('next_due_at', '=', dueAt)
      .where((eb) => eb.or([eb('reminded_due_at', 'is', null), eb('reminded_due_at', '!=', dueAt)]))
      .executeTakeFirst();
    await again(user.id, alarmAt(row, dueAt));
    if (Number(first.numUpdatedRows) === 1) await remindDaily(deps, user, alarmAt(row, dueAt));
  }

  async function fire(row: DailyCheckin, user: User, missed: number, next: number) {
    const since = Number(row.last_ok_at ?? row.created_at);
    await sendMissedDaily(deps, user, { dueAt: missed, since }, async (trx, alertId) => {
      const moved = await trx
        .updateTable('daily_checkins')
        .set({
          anchor_at: missed,
          next_due_at: next,
          missed_due_at: missed,
          alert_id: alertId,
          link_hash: null,
          link_expires_at: null,
          updated_at: clock.now(),
        })
        .where('user_id', '=', user.id)
        .where('enabled', '=', 1)
        .where('anchor_at', '=', Number(row.anchor_at))
        .where('next_due_at', '=', Number(row.next_due_at))
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw new DailyMoved();
      await setTimer(trx, { kind: DAILY_TIMER, subject: user.id, dueAt: next, now: clock.now() });
    });
  }

  return async ({ subject }) => {
    const row = await dailyOf(db, subject);
    if (!row?.enabled || row.next_due_at === null) return;
    const user = await findById(db, subject);
    if (!user) return;
    const sign = await signOfLifeAfter(db, user.id, Number(row.anchor_at));
    if (sign !== null) return recordSignOfLife(deps, user, sign);
    const now = clock.now();
    const dueAt = Number(row.next_due_at);
    if (now < dueAt) return again(user.id, dueAt);
    const { missed, next } = caughtUp(row, user, dueAt, now);
    if (missed === null) return remind(row, user, dueAt);
    return fire(row, user, missed, next);
  };
}
