/**
 * Alerts routes of DESIGN.md §3: the emergency page's public API (the personal token in the
 * path is the credential), the owner's history and the SMS provider's delivery receipts.
 */
import { z } from 'zod';
import { alertHeaders, alertRequest, locationError, tokenAlertParams, tokenParams } from './alert-request.js';
import { escalationView } from './escalation.js';
import { alertsRoutes } from './routes.js';
import { type Contract, errorResponses, noContent, operation, SECURITY } from './shared.js';

export {
  type AlertRequest,
  alertLocation,
  alertRequest,
  fixTime,
  IDEMPOTENCY_KEY_INVALID,
  IDEMPOTENCY_KEY_REQUIRED,
  LOCATION_ERRORS,
  tokenAlertParams,
  tokenParams,
} from './alert-request.js';

/** What the emergency page caches to work offline. */
export const emergencyPage = z
  .object({
    owner_name: z.string().describe('The display name, else the username.'),
    time_zone: z.string().nullable().describe('The owner’s IANA time zone for SMS times; null writes UTC.'),
    language: z.enum(['pt', 'en']),
    gps_enabled: z.boolean(),
    countdown_seconds: z.number().int(),
    contacts: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        phone_number: z
          .string()
          .describe('E.164 with the owner’s proof; without it masked, only the last 3 digits shown: `•••••••678`.'),
      }),
    ),
    numbers_masked: z
      .boolean()
      .describe(
        'True when the request carried no proof of the owner: each `phone_number` is masked (the page cannot text them).',
      ),
    messages: z
      .object({ real: z.string(), test: z.string() })
      .describe('The SMS texts without a position, for offline use.'),
    checkin_pin: z.boolean().describe('A check-in PIN is set: "I’m safe" asks for it.'),
    push_public_key: z.string().describe('The VAPID public key to subscribe to check-in reminders with.'),
  })
  .meta({ id: 'EmergencyPage' });

export type EmergencyPage = z.output<typeof emergencyPage>;

/** Why an alert went out: the button, a check-in not ended in time, or the duress PIN. */
export const ALERT_REASONS = ['button', 'missed_checkin', 'duress', 'missed_daily'] as const;
const alertReason = z
  .enum(ALERT_REASONS)
  .describe(
    '`button`: pressed; `missed_checkin`: a check-in was not ended in time; `duress`: ended with the duress PIN; `missed_daily`: the daily check-in was missed.',
  );

/** Statuses as shown: a provider's "undelivered" and an SMS withheld by the budget are `failed`. */
export const SHOWN_STATUSES = ['queued', 'sending', 'sent', 'delivered', 'failed'] as const;
export type ShownStatus = (typeof SHOWN_STATUSES)[number];

/** Why an SMS was withheld: this account's own alerts reached the number in the window, or the number's ceiling for all senders. */
export const WITHHELD_REASONS = ['recently_alerted', 'number_busy'] as const;

const delivery = z.object({
  contact_name: z.string(),
  status: z.enum(SHOWN_STATUSES),
  withheld: z
    .literal(true)
    .optional()
    .describe('Not sent: the number already received the most SMS allowed in a short time (see `withheld_reason`).'),
  withheld_reason: z
    .enum(WITHHELD_REASONS)
    .optional()
    .describe(
      'With `withheld`: `recently_alerted` when this account’s own earlier alerts already reached the number in the last minutes (the contact has the alert and its live link); `number_busy` when the number got the most SMS allowed in an hour from all senders together — the SMS was not sent and the contact was NOT necessarily alerted. An alert with the owner’s proof is never `number_busy` to a contact the owner has had for over an hour.',
    ),
  opted_out: z
    .literal(true)
    .optional()
    .describe(
      'Not sent (nor billed): this number replied STOP to Alerta. The contact can reply START to receive alerts again.',
    ),
});

export const alertView = z
  .object({
    id: z.string(),
    public_id: z.string().describe('Names the live page, `/a/{public_id}`.'),
    mode: z.enum(['real', 'test']),
    reason: alertReason,
    created_at: z.string(),
    proven: z
      .boolean()
      .describe(
        'True when the request carried the owner’s proof (`Authorization: Bearer` of the owner’s session or an `X-Alerta-Device-Key` the owner’s session issued): its SMS spend the owner’s own budget.',
      ),
    recently_alerted: z
      .boolean()
      .describe(
        'True only when at least one SMS was withheld because this account’s own earlier alerts already reached that contact in the last minutes (`withheld_reason: recently_alerted`).',
      ),
    number_busy: z
      .boolean()
      .describe(
        'True when at least one SMS was withheld by the number’s hourly ceiling for all senders (`withheld_reason: number_busy`): that contact was not alerted by this alert. Link-only alerts only, or a contact added less than an hour ago.',
      ),
    deliveries: z.array(delivery),
    escalation: escalationView.describe(
      'Whether and when the contacts are phoned if nobody answers, and each call’s state.',
    ),
  })
  .meta({ id: 'Alert' });

export type AlertView = z.output<typeof alertView>;

/** `POST /api/users/me/device-keys/` answer: the key, shown once (the server keeps only its hash). */
export const deviceKeyAnswer = z
  .object({
    device_key: z
      .string()
      .describe(
        'A random key (32 bytes, base64url) for the emergency page to send as `X-Alerta-Device-Key` with its alerts: proof that they are the owner’s.',
      ),
  })
  .meta({ id: 'DeviceKey' });

/** An alert as its owner's history shows it. */
export const ownerAlert = z
  .object({
    id: z.string(),
    public_id: z.string(),
    mode: z.enum(['real', 'test']),
    reason: alertReason,
    created_at: z.string(),
    location: z
      .object({
        latitude: z.number(),
        longitude: z.number(),
        accuracy: z.number().nullable(),
        captured_at: z.string().nullable(),
      })
      .nullable()
      .describe('Null without a position, and 30 days after the alert.'),
    location_error: locationError.nullable(),
    message: z.string().describe('The SMS text sent.'),
    deliveries: z.array(
      delivery.extend({
        phone_number: z.string(),
        attempts: z.number().int(),
        last_error: z.string().nullable(),
        updated_at: z.string(),
      }),
    ),
  })
  .meta({ id: 'OwnerAlert' });

export type OwnerAlert = z.output<typeof ownerAlert>;

/**
 * Twilio's status callback form. Every field it posts is part of the signature, so all are kept
 * as sent; these are the ones read.
 */
export const smsStatusForm = z
  .looseObject({
    MessageSid: z.string().optional(),
    MessageStatus: z.string().optional().describe('`sent`, `delivered`, `undelivered` and `failed` move the delivery.'),
    ErrorCode: z.string().optional(),
  })
  .meta({ id: 'TwilioStatus' });

export const smsStatusQuery = z.looseObject({ d: z.string().optional().describe('Our delivery id.') });

const emergency = { tags: ['alerts'] } as const;

export const alertsApi = {
  page: {
    ...alertsRoutes.page,
    ...operation('getEmergencyPage', 'Get what the emergency page shows and caches', SECURITY.link),
    ...emergency,
    description:
      'The owner, settings, contacts and SMS texts behind a token: what the emergency page caches. The contacts’ full numbers only with the owner’s proof (`Authorization: Bearer` of the owner’s session, or `X-Alerta-Device-Key`), which also passes the per-address ceiling; a link alone shows names and masked numbers.',
    params: tokenParams,
    response: { 200: emergencyPage, ...errorResponses(402, 404, 429) },
  },
  send: {
    ...alertsRoutes.send,
    ...operation('sendAlert', 'Send an alert', SECURITY.link),
    ...emergency,
    description:
      'Sends an alert: one SMS per contact (test alerts: the chosen or TEST contacts), written with its deliveries in one transaction. The same Idempotency-Key again answers 200 with the first alert and sends nothing; with another body (or another `contact_id`), 422. Test alerts: 5 an hour per token; a real alert is never refused by a rate limit. The owner’s proof — `Authorization: Bearer <access>` of the owner’s session, or `X-Alerta-Device-Key: <key>` from `POST /api/users/me/device-keys/` — makes the alert the owner’s: never 429 (neither the per-address ceiling nor the test limit) and its SMS spend a budget of its own. A proof that does not check out is ignored: the alert is link-only.',
    params: tokenParams,
    headers: alertHeaders,
    body: alertRequest,
    response: { 200: alertView, 201: alertView, ...errorResponses(400, 402, 403, 404, 422, 429) },
  },
  get: {
    ...alertsRoutes.get,
    ...operation('getAlert', 'Get an alert and its deliveries', SECURITY.link),
    ...emergency,
    description:
      'An alert with the current status of each delivery, readable even after the plan ends: by its link when the link sent it; an alert the owner proved or the server fired for them (a check-in, the daily check-in, the duress PIN) only with the owner’s proof, else 403 `owner_proof_required` (its public id opens the owner’s position).',
    params: tokenAlertParams,
    response: { 200: alertView, ...errorResponses(403, 404, 429) },
  },
  deviceKey: {
    ...alertsRoutes.deviceKey,
    ...operation('createDeviceKey', 'Issue a device key to this phone’s emergency page', SECURITY.session),
    tags: ['accounts'],
    description:
      'Issues a device key to the signed-in owner’s emergency page (on sign-in, or when the page is opened or installed signed in). The page sends it as `X-Alerta-Device-Key` with its alerts: proof that they are the owner’s. Kept hashed; at most 20 per account (a new one drops the oldest); deleted with the account.',
    response: { 201: deviceKeyAnswer, ...errorResponses(401) },
  },
  history: {
    ...alertsRoutes.history,
    ...operation('listAlerts', 'List the signed-in owner’s alerts', SECURITY.session),
    ...emergency,
    description: 'The signed-in owner’s last 100 alerts, newest first, with each delivery’s status.',
    response: { 200: z.array(ownerAlert), ...errorResponses(401) },
  },
  smsStatus: {
    ...alertsRoutes.smsStatus,
    ...operation('receiveSmsStatus', 'Receive an SMS delivery receipt (Twilio)', SECURITY.twilio),
    tags: ['alerts'],
    description:
      'Twilio’s delivery receipts, as a form. The X-Twilio-Signature header is checked against the URL Twilio was given and every form field before anything is read. Answered only when Twilio is configured.',
    consumes: ['application/x-www-form-urlencoded'],
    querystring: smsStatusQuery,
    body: smsStatusForm,
    response: { 204: noContent, ...errorResponses(403, 404) },
  },
} as const satisfies Contract<typeof alertsRoutes>;
