import type { Transaction } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { Database, Db, NewAlert, NewDelivery, WithheldReason } from '../../db/schema.js';
import { MINUTE } from '../../lib/time.js';
import { lockNumbers } from '../sms-replies/index.js';
import { numbersReached } from './repository.js';
import { contactNumbersInTouch, type SpentRow, spentByNumber } from './sms-budget-repository.js';

/**
 * How many SMS one number may receive, in messages and in SMS parts (a long or non-Latin
 * text is sent, billed and counted as several parts). Counted from the deliveries table
 * (alerts, tests and all-clears alike), so neither a new link, a second client address nor
 * an all-clear starts a fresh count; a retried delivery is one SMS.
 *
 * - `perAccountNumber`: from one account to one number, counted SEPARATELY for alerts that
 *   carried the owner's proof (session or device key: `alerts.proven`) and for link-only
 *   ones, so a stranger holding the link never spends what the owner's own alert may send.
 * - `perNumber`: to one number from all accounts and links together. It throttles link-only
 *   alerts, and proven alerts of an account that is not yet in touch with the number (see
 *   `inTouch`) beyond the account's first proven real alert to it in the window, which it
 *   never holds back: no set of other accounts can keep the owner's alert from a contact, and
 *   each account adds at most one SMS an hour to what the ceiling lets through.
 */
export const SMS_BUDGET = {
  perAccountNumber: { max: 10, maxParts: 20, windowMs: 10 * MINUTE },
  perNumber: { max: 30, maxParts: 60, windowMs: 60 * MINUTE },
} as const;

/** The reason kept on a delivery withheld because this account's own alerts already reached the number. */
export const WITHHELD_REASON =
  'Not sent: this number already received the most SMS allowed in a short time. The contacts were alerted recently and can follow the live link.';

/** The reason kept on a delivery withheld by the number's ceiling for all accounts and links. */
export const NUMBER_BUSY_REASON =
  'Not sent: this number already received the most SMS allowed in an hour from all senders. An alert sent from your signed-in app or your installed emergency button is not held back by this when it is your first to the number in an hour, nor for a contact you have had for over an hour.';

/** The text kept on a delivery not sent because its number said STOP. */
export const OPTED_OUT_REASON =
  'Not sent: this number replied STOP and receives nothing from Alerta. Ask the contact to reply START to receive alerts again.';

/** The text kept on a withheld delivery, by its reason. */
export const withheldText = (reason: WithheldReason) =>
  reason === 'number_busy' ? NUMBER_BUSY_REASON : WITHHELD_REASON;

interface Spent {
  messages: number;
  parts: number;
}

/**
 * What `spentByNumber` counted, per number; `alerted`: the numbers the account's own alerts already
 * reached; `optedOut`: the numbers that said STOP.
 */
function tallied(all: SpentRow[]): {
  mine: Map<string, Spent>;
  all: Map<string, Spent>;
  alerted: Set<string>;
  optedOut: Set<string>;
} {
  const tally = (messages: unknown, parts: unknown): Spent => ({ messages: Number(messages), parts: Number(parts) });
  const rows = all.filter((row) => Number(row.opted_out) === 0);
  return {
    mine: new Map(rows.map((row) => [row.phone, tally(row.mine_n, row.mine_p)])),
    all: new Map(rows.map((row) => [row.phone, tally(row.all_n, row.all_p)])),
    alerted: new Set(rows.filter((row) => Number(row.alerted_n) > 0).map((row) => row.phone)),
    optedOut: new Set(all.filter((row) => Number(row.opted_out) !== 0).map((row) => row.phone)),
  };
}

/**
 * The numbers `userId` is in touch with: a contact that confirmed this account (replied YES
 * to its invitation: the number itself said so), and, for a proven alert, one of its contacts
 * since before the ceiling's window (a contact added a minute ago does not count) or a number
 * its alerts reached (sent or delivered) before that window. None of these can be set up by an
 * account within the hour a flood takes, without the number's own reply.
 */
async function inTouch(
  db: Db,
  userId: string,
  phones: string[],
  before: number,
  proven: boolean,
): Promise<Set<string>> {
  const found = await contactNumbersInTouch(db, { userId, phones, before, proven });
  const rest = phones.filter((phone) => !found.has(phone));
  if (rest.length === 0 || !proven) return found;
  const reached = await numbersReached(db, {
    via: 'deliveries',
    userId,
    phones: rest,
    until: before,
    statuses: ['sent', 'delivered'],
  });
  for (const phone of reached) found.add(phone);
  return found;
}

const fits = (used: Spent | undefined, budget: { max: number; maxParts: number }, parts: number) =>
  (used?.messages ?? 0) < budget.max && (used?.parts ?? 0) + parts <= budget.maxParts;

export interface BudgetRequest {
  userId: string;
  phones: string[];
  now: number;
  /** Whether the SMS are of an alert that carried the owner's proof. */
  proven?: boolean;
  /** Whether the SMS are a real alert's own (not a test, an all-clear or an escalation's). */
  realAlert?: boolean;
  /** SMS parts of each message (the same text to every number). */
  parts?: number;
}

/**
 * For each of `phones`, null when one more SMS of `parts` parts from `userId` fits its
 * budgets now, else why not: `recently_alerted` (this account's own budget for the number,
 * proven and link-only apart) or `number_busy` (the number's ceiling, which a proven real
 * alert passes when it is the account's first to the number in the window, or the account
 * is in touch with the number); and which of them said STOP (`optedOut`), read with the
 * counts, under the same locks. Call inside the
 * transaction that inserts the deliveries: on PostgreSQL it takes a transaction lock per
 * number, so concurrent alerts to one number are counted one after the other (SQLite's
 * single writer already serialises them).
 */
export async function budgetDecisions(
  trx: Transaction<Database>,
  dialect: Dialect,
  request: BudgetRequest,
): Promise<{ decisions: Map<string, WithheldReason | null>; optedOut: Set<string> }> {
  const phones = [...new Set(request.phones)].sort();
  const decisions = new Map<string, WithheldReason | null>();
  if (phones.length === 0) return { decisions, optedOut: new Set() };
  const { perAccountNumber, perNumber } = SMS_BUDGET;
  const proven = request.proven ?? false;
  const parts = Math.max(1, request.parts ?? 1);
  // All the numbers' locks first, in the sorted order of `phones`, so two alerts never hold one
  // each and wait for the other's; the count runs once they are held, and reads what was
  // committed until then.
  await lockNumbers(trx, dialect, phones);
  const spent = await spentByNumber(
    trx,
    phones,
    { mineSince: request.now - perAccountNumber.windowMs, allSince: request.now - perNumber.windowMs },
    { userId: request.userId, proven },
  );
  const { mine, all, alerted, optedOut } = tallied(spent);
  // What other accounts sent never withholds the owner's first proven alert to a number in the window.
  const first = (phone: string) => proven && request.realAlert === true && !alerted.has(phone);
  const busy = phones.filter((phone) => !first(phone) && !fits(all.get(phone), perNumber, parts));
  const exempt =
    busy.length > 0 ? await inTouch(trx, request.userId, busy, request.now - perNumber.windowMs, proven) : new Set();
  for (const phone of phones) {
    if (!fits(mine.get(phone), perAccountNumber, parts)) decisions.set(phone, 'recently_alerted');
    else if (busy.includes(phone) && !exempt.has(phone)) decisions.set(phone, 'number_busy');
    else decisions.set(phone, null);
  }
  return { decisions, optedOut };
}

/** Which of `phones` may get one more SMS from `userId` now (see `budgetDecisions`). */
export async function numbersWithinBudget(
  trx: Transaction<Database>,
  dialect: Dialect,
  request: BudgetRequest,
): Promise<Set<string>> {
  const { decisions, optedOut } = await budgetDecisions(trx, dialect, request);
  return new Set(
    [...decisions].filter(([phone, reason]) => reason === null && !optedOut.has(phone)).map(([phone]) => phone),
  );
}

/**
 * One alert's deliveries with the SMS budgets applied, in the transaction that will insert
 * them: a delivery to a number that said STOP is stored `opted_out` (never sent nor billed);
 * one to a number over its budgets is stored `withheld` (never sent), with the reason and its text; a proven alert spends the owner's own budget. Parts: the longest SMS.
 */
export async function withinBudgets(
  trx: Transaction<Database>,
  dialect: Dialect,
  request: { alert: Pick<NewAlert, 'user_id' | 'proven' | 'mode'>; deliveries: NewDelivery[]; now: number },
): Promise<NewDelivery[]> {
  const { alert, deliveries, now } = request;
  if (deliveries.length === 0) return deliveries;
  const { decisions, optedOut } = await budgetDecisions(trx, dialect, {
    userId: alert.user_id,
    phones: deliveries.map((d) => d.phone_number),
    now,
    proven: alert.proven === 1,
    realAlert: alert.mode === 'real',
    parts: Math.max(...deliveries.map((d) => d.parts ?? 1)),
  });
  return deliveries.map((d) => {
    if (optedOut.has(d.phone_number)) return { ...d, status: 'opted_out' as const, last_error: OPTED_OUT_REASON };
    const reason = decisions.get(d.phone_number) ?? null;
    return reason === null
      ? d
      : { ...d, status: 'withheld' as const, withheld_reason: reason, last_error: withheldText(reason) };
  });
}
