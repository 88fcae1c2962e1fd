import { parseReply } from '../../../common/sms-replies.js';
import { HELP_MESSAGE, takenMessage } from '../../../common/sms-text-replies.js';
import type { Deps } from '../../lib/deps.js';
import { HOUR } from '../../lib/time.js';
import { contactOnTheWay } from '../live/index.js';
import { type OpenAlert, openAlertsOf } from './live-alerts.js';
import { queueNotice, queueNoticeOnce } from './notices.js';
import { optOut } from './opt-outs.js';
import { askWhich, pendingQuestion, type Question, tellEnded } from './questions.js';
import { confirmNumber, forgetQuestion, optedOutAmong, optIn } from './repository.js';

/** What a reply did, for the route's log and the tests. */
export type ReplyOutcome =
  | 'opted_out'
  | 'opted_in'
  | 'confirmed'
  | 'on_the_way'
  | 'asked_which'
  | 'told_ended'
  | 'helped'
  | 'ignored';

type ReplyDeps = Pick<Deps, 'db' | 'dialect' | 'clock' | 'liveHub' | 'jobs'>;

/**
 * One SMS a number sent to Alerta (Twilio's inbound webhook, or the dev outbox's reply box):
 * STOP and START for every account; during an alert "on my way" for the owner whose alert it
 * is (or, with several, a question by name whose next digit answers it and nothing else); YES
 * confirms the latest invitation; anything else gets the help text, at most once an hour. It
 * never lowers an alert: a spoofed number can at most say it is on its way.
 */
export async function handleReply(deps: ReplyDeps, from: string, text: string): Promise<ReplyOutcome> {
  const phone = from.trim();
  const { word, choice } = parseReply(text);
  const now = deps.clock.now();
  if (word === 'stop') {
    if (await optOut(deps.db, phone, 'reply', now)) deps.jobs.kick();
    await forgetQuestion(deps.db, phone);
    return 'opted_out';
  }
  if (word === 'start') {
    await optIn(deps.db, phone);
    return 'opted_in';
  }
  // A number that said STOP gets nothing back, whatever it sends, until START.
  if ((await optedOutAmong(deps.db, [phone])).size > 0) return 'ignored';
  const question = choice === null ? undefined : await pendingQuestion(deps.db, phone, now);
  if (question && choice !== null) return answer(deps, phone, question, choice, now);
  const open = await openAlertsOf(deps.db, phone, now);
  if (word === 'on_my_way' || (word === 'ok' && open.length > 0)) {
    const [only] = open;
    if (open.length === 1 && only) return onTheWay(deps, only, now, phone);
    if (open.length > 1) return (await askWhich(deps, phone, open, now)) ? 'asked_which' : 'ignored';
  }
  if ((word === 'yes' || word === 'ok') && (await confirmNumber(deps.db, phone, now))) return 'confirmed';
  return help(deps, phone, now);
}

/**
 * A digit while "which alert?" waits is its answer and nothing else: it picks from the alerts
 * as they were offered, never from those open now. The chosen alert still open: "on my way" to
 * it, the question answered. Ended since (resolved, or its live page over): the number is told
 * so and nothing else changes. A digit beyond the list gets the help text.
 */
async function answer(deps: ReplyDeps, phone: string, question: Question, choice: number, now: number) {
  const alertId = question.alertIds[choice - 1];
  if (alertId === undefined) return help(deps, phone, now);
  const [chosen] = await openAlertsOf(deps.db, phone, now, alertId);
  if (!chosen) return (await tellEnded(deps, phone, question, choice, now)) ? 'told_ended' : 'ignored';
  await forgetQuestion(deps.db, phone);
  return onTheWay(deps, chosen, now, phone);
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
    deps.jobs.kick();
  }
  return 'on_the_way';
}

/** The help text, at most once an hour to one number (a loop with another robot ends there). */
async function help(deps: ReplyDeps, phone: string, now: number): Promise<ReplyOutcome> {
  const notice = { phone, kind: 'help' as const, body: HELP_MESSAGE, now, since: now - HOUR };
  return (await queueNoticeOnce(deps, notice)) ? 'helped' : 'ignored';
}
