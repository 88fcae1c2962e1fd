import { createHash } from 'node:crypto';
import type {
  LivePosition,
  LiveView,
  PositionRequest,
  Resolution,
  Responder,
  SenderLive,
} from '../../../common/api/live.js';
import { LIVE_TRACKING_MS } from '../../../common/constants.js';
import { checkResponderName } from '../../../common/responder-name.js';
import type { Alert, User } from '../../db/schema.js';
import { iso } from '../../lib/dates.js';
import type { Deps } from '../../lib/deps.js';
import { detailError, fieldErrors, notFound } from '../../lib/errors.js';
import { fixTimeProblem } from '../../lib/fix-time.js';
import { MINUTE } from '../../lib/time.js';
import {
  alertOfUser,
  forgetPositionsBefore,
  markResolved,
  queueAllClear,
  realAlertByPublicId,
  touchAlert,
} from '../alerts/index.js';
import { subscriptionProfile } from '../billing/index.js';
import { settleEscalation } from '../escalation/index.js';
import { ownerOf } from '../owner/index.js';
import { contactKeyHash, livePageUrl } from './links.js';
import {
  addContactResponder,
  addPosition,
  addStranger,
  deleteLiveRowsBefore,
  deliveryByContactKey,
  respondersOf,
} from './repository.js';
import { CONTACT_KEY, liveState, liveView, mapTiles, shownResponder } from './view.js';

/** A fix may be a little older than the alert (the one it went out with). */
const FIX_SLACK_MS = 5 * MINUTE;
/** A public id is 22 URL-safe characters today; anything unlike one is not looked up. */
const PUBLIC_ID = /^[A-Za-z0-9_-]{16,64}$/;
/** Answers without a contact key an alert takes; contacts' own links always have a slot. */
export const MAX_STRANGERS = 50;
/** Answers without a contact key from one client address, per alert. */
export const STRANGERS_PER_ADDRESS = 3;
const NO_LIVE_PAGE = 'This live page does not exist.';

/** What reading and changing the live side needs; changes are told to the open streams. */
type LiveDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'liveHub'>;

/** An alert with its owner: the sender's (by token) or a followed one (by public id). */
export interface OwnedAlert {
  user: User;
  alert: Alert;
}

/** One of the token owner's alerts, by id or public id: 404 for an unknown token or alert. */
export async function senderAlert(deps: Pick<Deps, 'db'>, token: string, id: string): Promise<OwnedAlert> {
  const user = await ownerOf(deps, token);
  const alert = await alertOfUser(deps.db, user.id, id);
  if (!alert) throw notFound();
  return { user, alert };
}

/** The real alert a live link names: 404 for anything else. */
export async function followedAlert(deps: Pick<Deps, 'db'>, publicId: string): Promise<OwnedAlert> {
  const found = PUBLIC_ID.test(publicId) ? await realAlertByPublicId(deps.db, publicId) : undefined;
  if (!found) throw notFound(NO_LIVE_PAGE);
  return { user: found.owner, alert: found.alert };
}

/**
 * A position while the emergency page stays open: real alerts only, on a plan with GPS,
 * until the alert is resolved or 60 minutes old, with a fix time during the alert.
 */
export async function addLivePosition(
  deps: LiveDeps,
  { user, alert }: OwnedAlert,
  position: PositionRequest,
): Promise<LivePosition> {
  const now = deps.clock.now();
  const created = Number(alert.created_at);
  if (alert.mode !== 'real') throw detailError(409, 'Test alerts have no live location.', 'not_real');
  const profile = await subscriptionProfile(deps.db, user, now, deps.config);
  if (!profile.gps_enabled) {
    throw detailError(402, 'Live location needs the premium plan or a trial.', 'gps_not_in_plan');
  }
  if (alert.resolved_at !== null) throw detailError(409, 'This alert has ended.', 'alert_resolved');
  if (now > created + LIVE_TRACKING_MS) {
    throw detailError(409, 'Live location stops 60 minutes after the alert.', 'tracking_over');
  }
  const problem = fixTimeProblem(position.captured_at, now);
  if (problem) throw fieldErrors({ captured_at: [problem] });
  if (position.captured_at < created - FIX_SLACK_MS) {
    throw fieldErrors({ captured_at: ['The fix time must be during the alert.'] });
  }
  // The position and the alert's last update (the live page stays up a day from it) together.
  await deps.db.transaction().execute(async (trx) => {
    await addPosition(trx, alert.id, position, now);
    await touchAlert(trx, alert.id, now);
  });
  deps.liveHub.publish(alert.id);
  return { ...position, captured_at: iso(position.captured_at) };
}

/** The sender's view: the live link, its state, who is on the way and whether to keep sending positions. */
export async function senderLive(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  { user, alert }: OwnedAlert,
): Promise<SenderLive> {
  const now = deps.clock.now();
  const profile = await subscriptionProfile(deps.db, user, now, deps.config);
  const created = Number(alert.created_at);
  const responders = await respondersOf(deps.db, alert.id);
  return {
    public_id: alert.public_id,
    live_url: alert.mode === 'real' ? livePageUrl(deps.config.APP_URL, alert.public_id) : null,
    state: liveState(alert, now),
    resolved_at: alert.resolved_at === null ? null : iso(alert.resolved_at),
    tracking:
      alert.mode === 'real' && profile.gps_enabled && alert.resolved_at === null && now <= created + LIVE_TRACKING_MS,
    tracking_until: iso(created + LIVE_TRACKING_MS),
    responders: responders.map(shownResponder),
  };
}

/**
 * "I'm safe": resolves the alert and, when asked, queues the all-clear SMS in the same
 * transaction. Only the first call resolves: a second one changes and sends nothing.
 */
export async function resolveAlert(
  deps: LiveDeps & Pick<Deps, 'dialect' | 'dispatcher'>,
  { user, alert }: OwnedAlert,
  notify: boolean,
): Promise<Resolution> {
  const now = deps.clock.now();
  const queued = await deps.db.transaction().execute(async (trx) => {
    if (!(await markResolved(trx, alert.id, now))) return 0;
    // Safe before the calls went out: nobody is phoned. After, the all-clear SMS still go.
    await settleEscalation(trx, alert.id, 'cancelled');
    if (!notify || alert.mode !== 'real') return 0;
    return queueAllClear(deps, trx, alert, user, now);
  });
  if (queued > 0) deps.dispatcher.kick();
  deps.liveHub.publish(alert.id);
  const resolved = await alertOfUser(deps.db, user.id, alert.id);
  return { state: 'resolved', resolved_at: iso(resolved?.resolved_at ?? now), all_clear_queued: queued };
}

/** What a live link shows now; `ended` once the alert is gone. */
export async function currentLiveView(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  publicId: string,
): Promise<LiveView> {
  const found = await realAlertByPublicId(deps.db, publicId);
  if (!found) return { state: 'ended' };
  return liveView(deps.db, found.alert, found.owner, deps.clock.now(), mapTiles(deps.config));
}

/** What a live link shows (404 for an unknown one); with a contact's key, their own answer too. */
export async function followLiveView(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  publicId: string,
  contactKey?: string,
): Promise<LiveView> {
  const { user, alert } = await followedAlert(deps, publicId);
  return liveView(deps.db, alert, user, deps.clock.now(), mapTiles(deps.config), contactKey);
}

/**
 * A contact's own "I'm on my way" (their link's key, or their SMS reply: `channel`): named after
 * the contact unless they typed a name, once per contact (again renames), and nobody needs phoning
 * any more (a stranger's answer never cancels the calls). The caller publishes the change.
 */
export async function contactOnTheWay(
  deps: Pick<Deps, 'db'>,
  alertId: string,
  delivery: { id: string; contact_name: string },
  answer: { typedName: string; channel: 'link' | 'sms' },
  now: number,
) {
  const contactName = checkResponderName(delivery.contact_name);
  const name = answer.typedName || (contactName.ok ? contactName.name : '');
  const stored = await addContactResponder(deps.db, {
    alertId,
    deliveryId: delivery.id,
    name,
    now,
    channel: answer.channel,
  });
  await settleEscalation(deps.db, alertId, 'cancelled');
  return stored;
}

/** "I'm on my way": the cleaned name, the contact key from the SMS's link if any, and the client's address. */
export interface Answer {
  name: string;
  contactKey?: string | null | undefined;
  client: string;
}

/**
 * "I'm on my way" while the alert is active. Through a contact's own link (a valid key):
 * always accepted, named after the contact unless they typed a name, once per contact (a
 * second press renames). Anyone else with the link: at most STRANGERS_PER_ADDRESS from one
 * address and MAX_STRANGERS in all. `charge` counts the request against the rate limit of
 * the contact's key (by delivery) or of the client's address.
 */
export async function acknowledge(
  deps: Pick<Deps, 'db' | 'clock' | 'liveHub'>,
  { alert }: OwnedAlert,
  answer: Answer,
  charge: { contact: () => Promise<void>; stranger: () => Promise<void> },
): Promise<{ created: boolean; responder: Responder }> {
  const now = deps.clock.now();
  if (liveState(alert, now) !== 'active') throw detailError(409, 'This alert has ended.', 'alert_ended');
  const key = answer.contactKey;
  const delivery =
    key && CONTACT_KEY.test(key) ? await deliveryByContactKey(deps.db, alert.id, contactKeyHash(key)) : undefined;
  let result: { created: boolean; responder: Responder };
  if (delivery) {
    await charge.contact();
    const stored = await contactOnTheWay(deps, alert.id, delivery, { typedName: answer.name, channel: 'link' }, now);
    result = {
      created: stored.created,
      responder: { ...stored.responder, created_at: iso(stored.responder.created_at) },
    };
  } else {
    // An unknown key is no key: guesses are charged to the address like any other answer.
    await charge.stranger();
    const stored = await addStranger(deps.db, {
      alertId: alert.id,
      name: answer.name,
      clientHash: createHash('sha256').update(`${alert.id}:${answer.client}`).digest('base64url'),
      now,
      max: MAX_STRANGERS,
      perClient: STRANGERS_PER_ADDRESS,
    });
    if (stored === 'full') {
      throw detailError(409, 'This alert already has enough people on the way.', 'too_many_responders');
    }
    if (stored === 'client_full') {
      throw detailError(
        409,
        `At most ${STRANGERS_PER_ADDRESS} people can say they are on the way from one address.`,
        'too_many_responders',
      );
    }
    result = { created: true, responder: { ...stored, created_at: iso(stored.created_at) } };
  }
  deps.liveHub.publish(alert.id);
  return result;
}

/**
 * Deletes live positions and responders recorded before `cutoff`, and the position an alert
 * went out with when the alert is older; returns how many rows went or lost their position.
 */
export async function purgeLiveHistory(deps: Pick<Deps, 'db'>, cutoff: number): Promise<number> {
  return (await deleteLiveRowsBefore(deps.db, cutoff)) + (await forgetPositionsBefore(deps.db, cutoff));
}
