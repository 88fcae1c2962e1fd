import type { CheckinStart, CheckinView } from '../../../common/api/checkins.js';
import { CHECKIN_SECONDS } from '../../../common/constants.js';
import type { AlertLocation } from '../../../common/sms-text.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Checkin, User } from '../../db/schema.js';
import { enqueue } from '../../jobs/index.js';
import type { Deps } from '../../lib/deps.js';
import { detailError, fieldErrors, notFound } from '../../lib/errors.js';
import { fixTimeProblem } from '../../lib/fix-time.js';
import { newId } from '../../lib/ids.js';
import { digestOf } from '../../lib/request-hash.js';
import { HOUR, SECOND } from '../../lib/time.js';
import { alertOfUser } from '../alerts/index.js';
import type { TokenOwner } from '../owner/index.js';
import { checkPin } from './pins.js';
import {
  checkinByKey,
  checkinOfUser,
  currentCheckin,
  endLinkOnly,
  insertCheckin,
  isActive,
  updateActive,
} from './repository.js';
import { checkinView } from './views.js';

const RUNNING = 'A check-in is already running. End it or extend it instead of starting another.';
const KEY_REUSED = 'This Idempotency-Key was already used for a different check-in. Use a new key.';
const ENDED = 'This check-in has already ended.';
const FIRED = 'The time was up: your contacts have been alerted. Send the all-clear if you are safe.';
const TOO_LONG = 'A check-in lasts 24 hours at most, extensions included.';
const NONE = 'There is no current check-in.';

export type CheckinDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'jobs'>;

const requestHash = (body: CheckinStart) => digestOf([body.duration_seconds, body.note ?? null, body.location ?? null]);

/** The check-in as answered: `linkOnly` when the request carried no proof of the owner's (checkinView). */
const viewOf = async (deps: Pick<Deps, 'db'>, checkin: Checkin, linkOnly: boolean): Promise<CheckinView> => {
  const alert =
    checkin.alert_id && !linkOnly ? await alertOfUser(deps.db, checkin.user_id, checkin.alert_id) : undefined;
  return checkinView(checkin, alert?.public_id ?? null, linkOnly);
};

/** The check-in of the token's owner by id (404 otherwise). */
async function ownCheckin(deps: Pick<Deps, 'db'>, user: User, id: string): Promise<Checkin> {
  const checkin = await checkinOfUser(deps.db, user.id, id);
  if (!checkin) throw notFound();
  return checkin;
}

/** The refusal for a check-in that can no longer change: fired (its alert went out) or ended. */
const settled = (checkin: Checkin) =>
  checkin.status === 'fired' ? detailError(409, FIRED, 'checkin_fired') : detailError(409, ENDED, 'checkin_ended');

/** The refusal for a check-in that changed under this request: read again, it fired or ended. */
const settledNow = async (deps: Pick<Deps, 'db'>, checkin: Checkin) =>
  settled((await checkinOfUser(deps.db, checkin.user_id, checkin.id)) ?? checkin);

type Fix = AlertLocation & { captured_at: number };

/**
 * A position as kept: refused (400 on `field`) when dated too far ahead or behind, and a date
 * still a little ahead counted as now, so no fix can pass for newer than one taken after it.
 */
function keptFix(fix: Fix, now: number, field: 'location' | 'captured_at'): Fix {
  const problem = fixTimeProblem(fix.captured_at, now);
  if (problem) throw fieldErrors({ [field]: [problem] });
  return { ...fix, captured_at: Math.min(fix.captured_at, now) };
}

/**
 * Starts a check-in and its job in one transaction. The same key answers the same check-in
 * (422 with another body); a second one while one runs is 409, except that the owner's own
 * start (`proven`: it carried their proof) ends a running check-in started with the link alone
 * and takes its place: a link holder's check-in never keeps the owner from theirs. Without GPS
 * in the plan no position is kept.
 */
export async function startCheckin(
  deps: CheckinDeps,
  owner: TokenOwner,
  request: { key: string; body: CheckinStart; proven: boolean },
): Promise<{ created: boolean; checkin: CheckinView }> {
  const { user, profile } = owner;
  const { key, body, proven } = request;
  const replay = async () => {
    const existing = await checkinByKey(deps.db, user.id, key);
    if (!existing) return null;
    if (existing.request_hash !== requestHash(body)) throw detailError(422, KEY_REUSED, 'idempotency_key_reused');
    return { created: false, checkin: await viewOf(deps, existing, !proven) };
  };
  const replayed = await replay();
  if (replayed) return replayed;
  const now = deps.clock.now();
  const location = body.location ? keptFix(body.location, now, 'location') : null;
  const fix = profile.gps_enabled ? location : null;
  const row = {
    id: newId(),
    user_id: user.id,
    idempotency_key: key,
    request_hash: requestHash(body),
    status: 'running' as const,
    note: body.note?.trim() || null,
    due_at: now + body.duration_seconds * SECOND,
    grace_seconds: deps.config.CHECKIN_GRACE_SECONDS,
    latitude: fix?.latitude ?? null,
    longitude: fix?.longitude ?? null,
    accuracy: fix?.accuracy ?? null,
    captured_at: fix?.captured_at ?? null,
    proven: proven ? 1 : 0,
    fix_proven: fix && proven ? 1 : 0,
    wrong_pins: 0,
    duress: 0,
    alert_id: null,
    created_at: now,
    ended_at: null,
  };
  try {
    const replaced = await deps.db.transaction().execute(async (trx) => {
      const ended = proven ? await endLinkOnly(trx, user.id, now) : [];
      for (const id of ended) await enqueue(trx, { kind: 'checkin', subject: id, dueAt: now, now });
      await insertCheckin(trx, row);
      await enqueue(trx, { kind: 'checkin', subject: row.id, dueAt: row.due_at, now });
      return ended.length;
    });
    if (replaced > 0) deps.jobs.kick();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // The same key won a concurrent start, or another check-in is running.
    const raced = await replay();
    if (raced) return raced;
    throw detailError(409, RUNNING, 'checkin_running');
  }
  return { created: true, checkin: checkinView(row, null, !proven) };
}

/**
 * The owner's check-in that is running or overdue, or ended within the hour (404 when none), as
 * the owner sees it or, `linkOnly`, as the link alone may (checkinView).
 */
export async function currentOf(deps: Pick<Deps, 'db' | 'clock'>, user: User, linkOnly: boolean): Promise<CheckinView> {
  const checkin = await currentCheckin(deps.db, user.id, deps.clock.now() - HOUR);
  if (!checkin) throw detailError(404, NONE, 'not_found');
  return viewOf(deps, checkin, linkOnly);
}

/** The last known position of a running or overdue check-in (without GPS in the plan, none is kept). */
export async function checkinPosition(
  deps: Pick<Deps, 'db' | 'clock'>,
  owner: TokenOwner,
  id: string,
  sent: Fix,
): Promise<void> {
  const checkin = await ownCheckin(deps, owner.user, id);
  const fix = keptFix(sent, deps.clock.now(), 'captured_at');
  if (!owner.profile.gps_enabled) return;
  const { latitude, longitude, accuracy, captured_at } = fix;
  // An older fix arriving late never replaces a newer one.
  if (checkin.captured_at !== null && Number(checkin.captured_at) > captured_at) return;
  // Only the owner's proof reaches here: the position kept is theirs.
  const kept = { latitude, longitude, accuracy, captured_at, fix_proven: 1 };
  if (!(await updateActive(deps.db, id, kept))) throw settled(checkin);
}

/** The check-in's duress mark after a PIN: once given, the duress PIN's mark stays (its alert goes once). */
const duressMark = (checkin: Checkin, duress: boolean) => (duress || Number(checkin.duress) === 1 ? 1 : 0);

/**
 * Moves the due time on by `seconds` (from now when already due); a day at most in all. With a
 * PIN set it needs the PIN (checkPin): the duress PIN answers as the right one and marks the
 * check-in, whose job, set due now by either, sends the duress alert while it runs on.
 */
export async function extendCheckin(
  deps: CheckinDeps,
  user: User,
  id: string,
  request: { seconds: number; pin?: string | null | undefined },
): Promise<CheckinView> {
  const checkin = await ownCheckin(deps, user, id);
  if (!isActive(checkin)) throw settled(checkin);
  const now = deps.clock.now();
  const dueAt = Math.max(Number(checkin.due_at), now) + request.seconds * SECOND;
  if (dueAt > Number(checkin.created_at) + CHECKIN_SECONDS.max * SECOND) {
    throw detailError(400, TOO_LONG, 'checkin_too_long');
  }
  const duress = await checkPin(deps, user, checkin, request.pin, () => settledNow(deps, checkin));
  const moved = await deps.db.transaction().execute(async (trx) => {
    if (!(await updateActive(trx, id, { status: 'running', due_at: dueAt, duress: duressMark(checkin, duress) }))) {
      return false;
    }
    await enqueue(trx, { kind: 'checkin', subject: id, dueAt: now, now });
    return true;
  });
  if (!moved) throw await settledNow(deps, checkin);
  deps.jobs.kick();
  return viewOf(deps, { ...checkin, status: 'running', due_at: dueAt }, false);
}

/**
 * "I'm safe". With a PIN set it needs the PIN (checkPin). The duress PIN answers exactly as the
 * right one, and does the same work (the check-in marked done, its job set due now), so
 * neither the answer nor its time tells them apart; the job then sends the duress alert.
 * Whichever commits first, this or the firing, wins.
 */
export async function endCheckin(
  deps: CheckinDeps,
  user: User,
  id: string,
  pin: string | null | undefined,
): Promise<{ status: 'done' }> {
  const checkin = await ownCheckin(deps, user, id);
  if (!isActive(checkin)) throw settled(checkin);
  const duress = await checkPin(deps, user, checkin, pin, () => settledNow(deps, checkin));
  const now = deps.clock.now();
  const ended = await deps.db.transaction().execute(async (trx) => {
    if (!(await updateActive(trx, id, { status: 'done', ended_at: now, duress: duressMark(checkin, duress) }))) {
      return false;
    }
    await enqueue(trx, { kind: 'checkin', subject: id, dueAt: now, now });
    return true;
  });
  if (!ended) throw await settledNow(deps, checkin);
  deps.jobs.kick();
  return { status: 'done' };
}
