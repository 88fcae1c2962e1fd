import { endedMessage, whichMessage } from '../../../common/sms-text-replies.js';
import type { Db } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { HOUR } from '../../lib/time.js';
import type { OpenAlert } from './live-alerts.js';
import { queueNoticeOnce } from './notices.js';
import { forgetQuestion, insertQuestion, questionSince } from './repository.js';

/** How long "which alert?" waits for its answer. */
export const QUESTION_TTL_MS = HOUR;

type QuestionDeps = Pick<Deps, 'db' | 'dialect' | 'jobs'>;

/** "Which alert?" as a number was asked it: the alerts in the order offered, and the language. */
export interface Question {
  alertIds: string[];
  language: 'pt' | 'en';
  askedAt: number;
}

/** The question `phone` was asked within the last `QUESTION_TTL_MS` and has not answered, if any. */
export async function pendingQuestion(db: Db, phone: string, now: number): Promise<Question | undefined> {
  const row = await questionSince(db, phone, now - QUESTION_TTL_MS);
  if (!row) return undefined;
  return { alertIds: JSON.parse(row.alert_ids) as string[], language: row.language, askedAt: Number(row.created_at) };
}

/**
 * Several owners' alerts are open: one SMS asks which, by name, in the first owner's language;
 * the next reply's digit decides. At most one question an hour to one number (an
 * auto-responder's "OK" would otherwise get one back each time); the question already asked
 * still stands for its digit. False when none was asked.
 */
export async function askWhich(deps: QuestionDeps, phone: string, open: OpenAlert[], now: number): Promise<boolean> {
  const language = open[0]?.language ?? 'pt';
  const body = whichMessage(
    language,
    open.map((alert) => alert.ownerName),
  );
  const alertIds = JSON.stringify(open.map((alert) => alert.alertId));
  return queueNoticeOnce(deps, { phone, kind: 'which', body, now, since: now - QUESTION_TTL_MS }, async (trx) => {
    await forgetQuestion(trx, phone);
    await insertQuestion(trx, { phone, alertIds, language, now });
  });
}

/**
 * The alert a digit chose has ended since it was asked: the number is told so once for that
 * digit, in the question's language, and the question still stands for the others. False when
 * it was told already.
 */
export async function tellEnded(
  deps: QuestionDeps,
  phone: string,
  question: Question,
  choice: number,
  now: number,
): Promise<boolean> {
  const body = endedMessage(question.language, choice);
  return queueNoticeOnce(deps, { phone, kind: 'ended', body, now, since: question.askedAt - 1, sameText: true });
}
