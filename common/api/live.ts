/**
 * Live routes: after a real alert, the emergency page's position updates, its view of who is
 * on the way and "I'm safe" (the token is the credential), and the live page contacts open
 * from the SMS (the alert's public id, no login).
 */
import { z } from 'zod';
import { checkResponderName, RESPONDER_NAME_MESSAGES } from '../responder-name.js';
import { fixTime, tokenAlertParams } from './alert-request.js';
import type { ErrorCode } from './errors.js';
import { liveRoutes } from './routes.js';
import { type Contract, errorResponses, operation, SECURITY } from './shared.js';

/** A position as shown: the fix time in ISO 8601. */
export const livePosition = z
  .object({
    latitude: z.number(),
    longitude: z.number(),
    accuracy: z.number().describe('Radius of the fix in metres.'),
    captured_at: z.string(),
  })
  .meta({ id: 'Position' });

export type LivePosition = z.output<typeof livePosition>;

/** `POST …/alerts/{id}/location/` body: one fix while the emergency page stays open. */
export const positionRequest = z
  .object({
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    accuracy: z.number().min(0).max(1e6),
    captured_at: fixTime,
  })
  .meta({ id: 'PositionUpdate' });

export type PositionRequest = z.output<typeof positionRequest>;

export const responder = z
  .object({
    name: z.string().describe('Empty when the contact gave none.'),
    created_at: z.string(),
    contact: z
      .boolean()
      .describe('Answered as one of the contacts: their own link from the alert SMS, a reply to it, or the call.'),
    channel: z
      .enum(['link', 'sms', 'call'])
      .nullable()
      .describe(
        'How a contact answered: `link` (their own link from the SMS), `sms` (a reply to it), `call` (the escalation call); null for anyone else with the link.',
      ),
  })
  .meta({ id: 'Responder' });

export type Responder = z.output<typeof responder>;

/** Where the live page's map takes its tiles from, and the credit the provider requires. */
export const mapTiles = z
  .object({ tile_url: z.string(), attribution: z.string(), attribution_url: z.string() })
  .meta({ id: 'MapTiles' });

export type MapTiles = z.output<typeof mapTiles>;

/**
 * What a live link shows (and each server-sent `live` event carries): nothing at all once the
 * alert has ended; never phone numbers, contacts, the token or an e-mail address.
 */
export const liveView = z
  .discriminatedUnion('state', [
    z.object({ state: z.literal('ended') }),
    z.object({
      state: z.enum(['active', 'resolved']),
      owner_name: z.string().describe('The name the SMS gave: the display name, else the username.'),
      language: z.enum(['pt', 'en']),
      created_at: z.string(),
      reason: z
        .enum(['button', 'missed_checkin', 'duress', 'missed_daily'])
        .describe(
          'Why it went out, as the SMS says: pressed, a check-in not ended in time, the duress PIN, or a missed daily check-in.',
        ),
      since: z
        .string()
        .nullable()
        .describe(
          'Since when there has been no sign, as the SMS says: the last check-in (a missed daily check-in) or the time a check-in was due (a missed one); null otherwise.',
        ),
      you: z
        .object({ created_at: z.string(), channel: z.enum(['link', 'sms', 'call']) })
        .optional()
        .describe(
          'Asked with a contact’s own key (`?c=`): that contact’s own answer, however it came (their link, an SMS reply, the call).',
        ),
      resolved_at: z.string().nullable(),
      tracking_until: z.string().describe('Positions are taken until then.'),
      position: livePosition.optional().describe('The latest position, while the alert is active.'),
      trail: z.array(livePosition).describe('The last 20 positions, newest first, while active.'),
      responders: z.array(responder),
      map: mapTiles,
    }),
  ])
  .meta({ id: 'LiveView' });

export type LiveView = z.output<typeof liveView>;
export type LiveState = LiveView['state'];

/** What the emergency page learns about its alert's live side. */
export const senderLive = z
  .object({
    public_id: z.string(),
    live_url: z.string().nullable().describe('The live page the SMS links to; null for a test alert.'),
    state: z.enum(['active', 'resolved', 'ended']),
    resolved_at: z.string().nullable(),
    tracking: z.boolean().describe('Whether to keep sending positions.'),
    tracking_until: z.string(),
    responders: z.array(responder),
  })
  .meta({ id: 'SenderLive' });

export type SenderLive = z.output<typeof senderLive>;

export const resolveRequest = z
  .object({ notify: z.boolean().default(false).describe('Also send each contact the all-clear SMS.') })
  .meta({ id: 'ResolveRequest' });

export const resolution = z
  .object({
    state: z.literal('resolved'),
    resolved_at: z.string(),
    all_clear_queued: z.number().int().describe('All-clear SMS this call queued (0 after the first call).'),
  })
  .meta({ id: 'Resolution' });

export type Resolution = z.output<typeof resolution>;

/** The code each problem with a responder's name is answered with. */
const NAME_CODES = {
  too_long: 'max_length',
  no_visible: 'invalid_name',
  too_complex: 'invalid_name',
} as const satisfies Record<string, ErrorCode>;

export const ackRequest = z
  .object({
    name: z
      .string()
      // Cleaned (common/responder-name.ts): NFC, no direction controls, invisible characters or
      // floods of combining marks; then 1 to 40 visible characters, or none at all.
      .transform((value, ctx) => {
        const checked = checkResponderName(value);
        if (checked.ok) return checked.name;
        ctx.addIssue({
          code: 'custom',
          message: RESPONDER_NAME_MESSAGES[checked.problem],
          params: { code: NAME_CODES[checked.problem] },
        });
        return z.NEVER;
      })
      .nullish()
      .describe('Up to 40 visible characters; cleaned of direction controls and invisible characters.'),
    contact_key: z
      .string()
      .max(100)
      .nullish()
      .describe('The `c` parameter of the contact’s own live link from the SMS: the answer always has a slot.'),
  })
  .meta({ id: 'AckRequest' });

export const publicIdParams = z.object({ publicId: z.string().describe('The alert’s public id, from the SMS.') });

/** `?c=`: the contact key of a contact's own link, to be told their own answer. */
export const liveViewQuery = z.object({
  c: z.string().max(100).optional().describe('The contact key of the contact’s own link from the SMS.'),
});

const sender = { tags: ['live'], params: tokenAlertParams } as const;
const follower = { tags: ['live'], params: publicIdParams } as const;

export const liveApi = {
  position: {
    ...liveRoutes.position,
    ...operation('addAlertPosition', 'Add a position to an alert', SECURITY.link),
    ...sender,
    description:
      'A position while the emergency page stays open (premium and trial). Refused once the alert is resolved or 60 minutes old, and (400) for a fix dated more than 2 minutes ahead of the server’s clock; a replayed fix is stored once. On an alert with the owner’s proof (`proven`, and every alert the server fired: a missed check-in, the duress PIN) only with that proof, else 403 `owner_proof_required`; on a link-only alert the link is enough.',
    body: positionRequest,
    response: { 201: livePosition, ...errorResponses(400, 402, 403, 404, 409, 429) },
  },
  sender: {
    ...liveRoutes.sender,
    ...operation('getSenderLive', 'Get an alert’s live state for its sender', SECURITY.link),
    ...sender,
    description:
      'The alert’s live state for its sender: the live link, who is on the way, whether to keep tracking. Of an alert the owner proved or the server fired, only with the owner’s proof (else 403 `owner_proof_required`).',
    response: { 200: senderLive, ...errorResponses(403, 404, 429) },
  },
  resolve: {
    ...liveRoutes.resolve,
    ...operation('resolveAlert', 'End an alert: “I’m safe”', SECURITY.ownerProof),
    ...sender,
    description:
      '"I’m safe": ends the alert and cancels its escalation calls; only the first call counts. With `notify`, one all-clear SMS per number. Only with the owner’s proof (`Authorization: Bearer` of the owner’s session or `X-Alerta-Device-Key`), for every alert: else 403 `owner_proof_required` (a link can raise the alarm, only the owner can lower it).',
    body: resolveRequest,
    response: { 200: resolution, ...errorResponses(400, 403, 404, 429) },
  },
  view: {
    ...liveRoutes.view,
    ...operation('getLiveView', 'Get what a live link shows', SECURITY.none),
    ...follower,
    description:
      'What the live link shows: who, why and since when, where, who is on the way. With the contact key of a contact’s own link (`c`), that contact’s own answer (`you`), also one given by SMS.',
    querystring: liveViewQuery,
    response: { 200: liveView, ...errorResponses(400, 404, 429) },
  },
  ack: {
    ...liveRoutes.ack,
    ...operation('acknowledgeAlert', 'Say “I’m on my way”', SECURITY.none),
    ...follower,
    description:
      '"I’m on my way", with an optional name. With the contact key of the SMS’s link: always accepted, once per contact (a second press renames it, 200). Without: at most 3 per address and 50 per alert.',
    body: ackRequest,
    response: { 201: responder, 200: responder, ...errorResponses(400, 404, 409, 429) },
  },
  events: {
    ...liveRoutes.events,
    ...operation('followLiveView', 'Follow a live link’s changes (server-sent events)', SECURITY.none),
    ...follower,
    description:
      'Server-sent events: a `live` event whose data is the LiveView as JSON, at once and after every change. The stream closes once the alert has ended.',
    response: {
      200: {
        description: 'A stream of `live` events.',
        content: { 'text/event-stream': { schema: z.string() } },
      },
      ...errorResponses(404, 429),
    },
  },
} as const satisfies Contract<typeof liveRoutes>;
