import type { Kysely } from 'kysely';
import type {
  LivePosition,
  LiveState,
  LiveView,
  MapTiles,
  Responder as ShownResponder,
} from '../../../common/api/live.js';
import { LIVE_PAGE_TTL_MS, LIVE_TRACKING_MS } from '../../../common/constants.js';
import { shownName } from '../../../common/profile-rules.js';
import type { Config } from '../../config.js';
import type { Alert, Database, User } from '../../db/schema.js';
import { iso } from '../../lib/dates.js';
import { sinceOf } from '../alerts/index.js';
import { ownerLanguage } from '../owner/index.js';
import { contactKeyHash } from './links.js';
import { answerByContactKey, type Position, type Responder, respondersOf, trailOf } from './repository.js';

/** What a contact key looks like (11 base64url characters today); anything else is not looked up. */
export const CONTACT_KEY = /^[A-Za-z0-9_-]{8,64}$/;

/** Positions the live page lists, newest first. */
export const TRAIL_LENGTH = 20;

export const mapTiles = (config: Config): MapTiles => ({
  tile_url: config.MAP_TILE_URL,
  attribution: config.MAP_ATTRIBUTION,
  attribution_url: config.MAP_ATTRIBUTION_URL,
});

/**
 * `resolved` for a day after "I'm safe", `active` until then, and `ended` (nothing shown)
 * 24 hours after the owner's last activity: the resolution, or the last position of an
 * alert never resolved (`last_update_at`, which an "on my way" never moves).
 */
export function liveState(alert: Alert, now: number): LiveState {
  const resolvedAt = alert.resolved_at === null ? null : Number(alert.resolved_at);
  const lastChange = resolvedAt ?? Number(alert.last_update_at ?? alert.created_at);
  if (now > lastChange + LIVE_PAGE_TTL_MS) return 'ended';
  return resolvedAt === null ? 'active' : 'resolved';
}

/** A position as shown: accuracy to the metre, the fix time in ISO 8601. */
export const shownPosition = (p: Position): LivePosition => ({
  latitude: p.latitude,
  longitude: p.longitude,
  accuracy: Math.round(p.accuracy),
  captured_at: iso(p.captured_at),
});

/** An answer as shown: its time in ISO 8601. */
export const shownResponder = (r: Responder): ShownResponder => ({ ...r, created_at: iso(r.created_at) });

/**
 * What a live link shows: the name the SMS already gave (the display name, else the username), when the alert went out, its state,
 * who is on the way and, while it is active, where the owner is. Nothing else about the
 * owner (no phone numbers, contacts, token or e-mail), and nothing at all once it has ended.
 */
export async function liveView(
  db: Kysely<Database>,
  alert: Alert,
  owner: User,
  now: number,
  map: MapTiles,
  contactKey?: string,
): Promise<LiveView> {
  const state = liveState(alert, now);
  if (state === 'ended') return { state };
  const created = Number(alert.created_at);
  const [trail, responders, since, you] = await Promise.all([
    state === 'active' ? trailOf(db, alert, TRAIL_LENGTH) : Promise.resolve([]),
    respondersOf(db, alert.id),
    sinceOf(db, alert),
    contactKey ? answerOfContact(db, alert.id, contactKey) : Promise.resolve(undefined),
  ]);
  const [latest] = trail;
  return {
    state,
    owner_name: shownName(owner),
    language: ownerLanguage(owner),
    created_at: iso(created),
    reason: alert.reason,
    since: since === null ? null : iso(since),
    ...(you ? { you } : {}),
    resolved_at: alert.resolved_at === null ? null : iso(Number(alert.resolved_at)),
    tracking_until: iso(created + LIVE_TRACKING_MS),
    ...(latest ? { position: shownPosition(latest) } : {}),
    trail: trail.map(shownPosition),
    responders: responders.map(shownResponder),
    map,
  };
}

/** A contact's own answer on an alert, found by the key of their link, however it came (link, SMS reply, call). */
async function answerOfContact(db: Kysely<Database>, alertId: string, contactKey: string) {
  if (!CONTACT_KEY.test(contactKey)) return undefined;
  const row = await answerByContactKey(db, alertId, contactKeyHash(contactKey));
  return row ? { created_at: iso(Number(row.created_at)), channel: row.channel ?? ('link' as const) } : undefined;
}
