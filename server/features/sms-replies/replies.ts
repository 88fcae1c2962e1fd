import { parseReply } from '../../../common/sms-replies.js';
import { HELP_MESSAGE, takenMessage, whichMessage } from '../../../common/sms-text-replies.js';
import type { Db } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { HOUR } from '../../lib/time.js';
import { contactOnTheWay } from '../live/service.js';
import { confirmNumber } from './invitations.js';
import { type OpenAlert, openAlertsOf } from './live-alerts.js';
import { noticesSince, queueNotice } from './notices.js';
import { lockNumber, optedOutAmong, optIn, optOut } from './opt-outs.js';

/** How long "which alert?" waits for its answer. */
export const QUESTION_TTL_MS = HOUR;

/** What a reply did, for the route's log and the tests. */
export type ReplyOutcome = 'opted_out' | 'opted_in' | 'confirmed' | 'on_the_way' | 'asked_which' | 'helped' | 'ignored';

type ReplyDeps = Pick<Deps, 'db' | 'dialect' | 'clock' | 'liveHub' | 'timers'>;

/**
 * One SMS a number sent to Alerta (Twilio's inbound webhook, or the dev outbox's reply box):
 * STOP and START for every account; during an alert "on my way" for the owner whose alert it
 * is (or, with several, a question by name whose next reply decides); YES confirms the
 * latest invitation; anything else gets the help text, at most once an hour. It never lowers an
 * alert: a spoofed number can at most say it is on its way.
 */
export async function handleReply(deps: ReplyDeps, from: string, text: string): Promise<ReplyOutcome> {
  const phone = from.trim();
  const { word, choice } = parseReply(text);
  const now = deps.clock.now();
  if (word === 'stop') {
    await optOut(deps.db, phone, 'reply', now);
    await deps.db.deleteFrom('sms_reply_questions').where('phone_number', '=', phone).execute();
    return 'opted_out';
  }
  if (word === 'start') {
    await optIn(deps.db, phone);
    return 'opted_in';
  }
  // A number that said STOP gets nothing back, whatever it sends, until START.
  if ((await optedOutAmong(deps.db, [phone])).size > 0) return 'ignored';
  const open = await openAlertsOf(deps.db, phone, now);
  const chosen = choice === null ? undefined : await answerToQuestion(deps.db, phone, open, choice, now);
  if (chosen) return onTheWay(deps, chosen, now, phone);
  if (word === 'on_my_way' || (word === 'ok' && open.length > 0)) {
    const [only] = open;
    if (open.length === 1 && only) return onTheWay(deps, only, now, phone);
    if (open.length > 1) return askWhich(deps, phone, open, now);
  }
  if ((word === 'yes' || word === 'ok') && (await confirmNumber(deps.db, phone, now))) return 'confirmed';
  return help(deps, phone, now);
}

/** The alert a number's digit picks from the question it was asked (still open), if any. */
async function answerToQuestion(db: Db, phone: string, open: OpenAlert[], choice: number, now: number) {
  const question = await db
    .selectFrom('sms_reply_questions')
    .selectAll()
    .where('phone_number', '=', phone)
    .where('created_at', '>', now - QUESTION_TTL_MS)
    .executeTakeFirst();
  if (!question) return undefined;
  const asked = JSON.parse(question.alert_ids) as string[];
  const alertId = asked[choice - 1];
  const picked = open.find((alert) => alert.alertId === alertId);
  if (picked) await db.deleteFrom('sms_reply_questions').where('phone_number', '=', phone).execute();
  return picked;
}

/**
 * The same "I'm on my way" as the contact's link, seen at once on every process's live streams,
 * named as an SMS reply; the first one gets a line back saying it was taken (a repeat gets none).
 */
async function onTheWay(deps: ReplyDeps, alert: OpenAlert, now: number, phone: string): Promise<ReplyOutcome> {
  const stored = await contactOnTheWay(deps, alert.alertId, alert.delivery, { typedName: '', channel: 'sms' }, now);
  deps.liveHub.publish(alert.alertId);
  if (stored.created) {
    const body = takenMessage(alert.language, alert.ownerName);
    await queueNotice(deps.db, { phone, kind: 'taken', body, now });
    deps.timers.kick();
  }
  return 'on_the_way';
}

/**
 * Several owners' alerts are open: one SMS asks which, by name; the next reply's digit decides.
 * At most one question an hour to one number (an auto-responder's "OK" would otherwise get one
 * back each time); the question already asked still stands for its digit.
 */
async function askWhich(deps: ReplyDeps, phone: string, open: OpenAlert[], now: number): Promise<ReplyOutcome> {
  const [first] = open;
  const body = whichMessage(
    first?.language ?? 'pt',
    open.map((alert) => alert.ownerName),
  );
  const asked = await deps.db.transaction().execute(async (trx) => {
    await lockNumber(trx, deps.dialect, phone);
    if ((await noticesSince(trx, phone, 'which', now - QUESTION_TTL_MS)) > 0) return false;
    await trx.deleteFrom('sms_reply_questions').where('phone_number', '=', phone).execute();
    await trx
      .insertInto('sms_reply_questions')
      .values({ phone_number: phone, alert_ids: JSON.stringify(open.map((alert) => alert.alertId)), created_at: now })
      .execute();
    await queueNotice(trx, { phone, kind: 'which', body, now });
    return true;
  });
  if (!asked) return 'ignored';
  deps.timers.kick();
  return 'asked_which';
}

/** The help text, at most once an hour to one number (a loop with another robot ends there). */
async function help(deps: ReplyDeps, phone: string, now: number): Promise<ReplyOutcome> {
  const sent = await deps.db.transaction().execute(async (trx) => {
    await lockNumber(trx, deps.dialect, phone);
    if ((await noticesSince(trx, phone, 'help', now - HOUR)) > 0) return false;
    await queueNotice(trx, { phone, kind: 'help', body: HELP_MESSAGE, now });
    return true;
  });
  if (!sent) return 'ignored';
  deps.timers.kick();
  return 'helped';
}
