import { firstDueAfter } from '../../../common/daily-schedule.js';
import type { DailyCheckin, User } from '../../db/schema.js';
import { enqueue, type JobHandler } from '../../jobs/index.js';
import { findById } from '../accounts/index.js';
import { AlertMoved } from '../alerts/index.js';
import { type DailyFireDeps, sendMissedDaily } from './fire.js';
import { remindDaily } from './reminder.js';
import { dailyOf, markMissed, markReminded, signOfLifeAfter, skipDue } from './repository.js';
import { alarmAt, caughtUp, scheduleOf } from './schedule.js';
import { hasDailyPlan, recordSignOfLife } from './service.js';

/**
 * Each owner's daily job (kind `daily`, subject the user's id). At the due time it reminds them (once per due time, whichever
 * process runs it: the reminded mark and the reminder's job in one transaction); at the end of the grace it sends the `missed_daily` alert, the row moved on
 * to the next due time in the same transaction, only while nothing changed since it was read,
 * so an "I'm OK" that committed first wins and a run taken over after a crash sends nothing
 * twice. An alert or check-in the owner sent since the last sign of life counts as one. A server
 * down past several due times sends one alert, naming the real last sign of life, and the
 * schedule goes on from the last day missed. An owner whose plan lapsed is neither reminded nor
 * alerted for: each due time is skipped until the plan carries the daily check-in again.
 */
export function dailyJobs(deps: DailyFireDeps): { daily: JobHandler; reminder: JobHandler } {
  const { db, clock } = deps;
  const setDueAt = (userId: string, dueAt: number) =>
    enqueue(db, { kind: 'daily', subject: userId, dueAt, now: clock.now() });

  async function remind(row: DailyCheckin, user: User, dueAt: number, now: number) {
    const first = await db.transaction().execute(async (trx) => {
      const marked = await markReminded(trx, user.id, dueAt);
      await enqueue(trx, { kind: 'daily', subject: user.id, dueAt: alarmAt(row, dueAt), now });
      if (!marked) return false;
      await enqueue(trx, { kind: 'daily-reminder', subject: user.id, dueAt: now, now });
      return true;
    });
    if (first) deps.jobs.kick();
  }

  /** The plan lapsed: this due time passes silently, the job waits for the next one. */
  async function skip(row: DailyCheckin, user: User, dueAt: number, now: number) {
    const next = firstDueAfter(scheduleOf(row, user), now);
    await db.transaction().execute(async (trx) => {
      if (await skipDue(trx, user.id, { dueAt, next, now })) {
        await enqueue(trx, { kind: 'daily', subject: user.id, dueAt: next, now });
      }
    });
  }

  async function fire(row: DailyCheckin, user: User, missed: number, next: number) {
    const since = Number(row.last_ok_at ?? row.created_at);
    await sendMissedDaily(deps, user, { dueAt: missed, since }, async (trx, alertId) => {
      if (!(await markMissed(trx, row, { missed, next, alertId, now: clock.now() }))) throw new AlertMoved();
      await enqueue(trx, { kind: 'daily', subject: user.id, dueAt: next, now: clock.now() });
    });
  }

  const dailyJob: JobHandler = async ({ subject }) => {
    const row = await dailyOf(db, subject);
    if (!row?.enabled || row.next_due_at === null) return;
    const user = await findById(db, subject);
    if (!user) return;
    const sign = await signOfLifeAfter(db, user.id, Number(row.anchor_at));
    if (sign !== null) {
      await recordSignOfLife(deps, user, sign);
      return;
    }
    const now = clock.now();
    const dueAt = Number(row.next_due_at);
    if (now < dueAt) return setDueAt(user.id, dueAt);
    if (!(await hasDailyPlan(deps, user, now))) return skip(row, user, dueAt, now);
    const { missed, next } = caughtUp(row, user, dueAt, now);
    if (missed === null) return remind(row, user, dueAt, now);
    return fire(row, user, missed, next);
  };

  /** The reminder job: only while that due time is still the one reminded, its grace running, and the plan on. */
  const reminder: JobHandler = async ({ subject, attempt }) => {
    const row = await dailyOf(db, subject);
    if (!row?.enabled || row.reminded_due_at === null || row.next_due_at === null) return;
    const dueAt = Number(row.next_due_at);
    const now = clock.now();
    if (Number(row.reminded_due_at) !== dueAt || now >= alarmAt(row, dueAt)) return;
    const user = await findById(db, subject);
    if (!user || !(await hasDailyPlan(deps, user, now))) return;
    await remindDaily(deps, user, alarmAt(row, dueAt), attempt);
  };
  return { daily: dailyJob, reminder };
}
