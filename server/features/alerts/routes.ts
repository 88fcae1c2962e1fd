import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { shownName } from '../../../common/profile-rules.js';
import { alertMessage, isTestContact, type LocationError } from '../../../common/sms-text.js';
import type { Alert, Contact, Delivery, User } from '../../db/schema.js';
import { detailError, fieldErrors, notFound, parseWith } from '../../lib/errors.js';
import { newId, randomToken } from '../../lib/ids.js';
import { limit } from '../../plugins/security.js';
import { type SubscriptionProfile, subscriptionProfile } from '../billing/subscriptions.js';
import { alertedContacts } from '../contacts/repository.js';
import { livePageUrl } from '../live/links.js';
import { mailOwnerAboutAlert } from './owner-mail.js';
import { alertByKey, alertOfUser, insertAlert, ownerByToken, publicAlertView, requestHashOf } from './repository.js';
import { type AlertBody, alertBody, fixTimeProblem, idempotencyKey } from './schemas.js';

const MINUTE = 60_000;
type TokenParams = { Params: { token: string } };

/** What the send route learns before its rate limit runs. */
interface SendContext {
  user: User;
  profile: SubscriptionProfile;
  key: string;
  body: AlertBody;
  /** What the body asks for, hashed: a replayed key must come with the same request. */
  requestHash: string;
  /** The alert this idempotency key already created: a replay, answered without sending. */
  existing?: Alert;
}

const UNKNOWN_TOKEN = 'This alert link is unknown or has been replaced by a new one.';
const SUBSCRIPTION_REQUIRED = 'An active subscription is required to send alerts.';
const NO_CONTACTS = 'There are no emergency contacts to alert. Add contacts first.';
const EMAIL_NOT_VERIFIED = 'Confirm your e-mail address before your contacts can be alerted.';
const KEY_REUSED = 'This Idempotency-Key was already used for a different alert. Use a new key for a new alert.';
const NO_TEST_CONTACTS =
  'Choose the contact who gets the test SMS on the test page (or name one contact starting with TEST, for example "TEST Maria").';
const UNKNOWN_TEST_CONTACT = 'The chosen contact is not one of the contacts this link alerts.';
const TEST_CONTACT_ONLY = 'A contact can only be chosen for a test alert.';

/**
 * Who gets a test SMS: the one contact chosen on the test page, else every contact whose name
 * starts with TEST. Always among the contacts the link alerts, so never more than a real alert.
 */
function testRecipients(contacts: Contact[], chosen: string | null | undefined): Contact[] {
  if (!chosen) return contacts.filter((c) => isTestContact(c.name));
  const contact = contacts.find((c) => c.id === chosen);
  if (!contact) throw detailError(400, UNKNOWN_TEST_CONTACT, 'unknown_test_contact');
  return [contact];
}

/** Rate-limit keys hold a hash of the token, never the secret itself. */
const tokenKey = (request: FastifyRequest) =>
  createHash('sha256')
    .update((request.params as { token?: string }).token ?? '')
    .digest('base64url')
    .slice(0, 22);

const languageOf = (user: User): 'pt' | 'en' => (user.language === 'en' ? 'en' : 'pt');

/** The parsed body in a fixed key order, hashed. */
const hashOf = (body: AlertBody) =>
  createHash('sha256')
    .update(JSON.stringify([body.mode, body.location ?? null, body.location_error ?? null]))
    .digest('base64url');

/** The public alert endpoints (DESIGN.md §3): the token is the credential. */
export default async function alertRoutes(app: FastifyInstance) {
  const contexts = new WeakMap<FastifyRequest, SendContext>();

  /** The token's owner with an active subscription: 404 for an unknown token, 402 without a plan. */
  async function activeOwner(token: string): Promise<{ user: User; profile: SubscriptionProfile }> {
    const user = await ownerByToken(app.db, token);
    if (!user) throw detailError(404, UNKNOWN_TOKEN, 'not_found');
    const profile = await subscriptionProfile(app.db, user, app.clock.now(), app.config);
    if (!profile.has_premium) throw detailError(402, SUBSCRIPTION_REQUIRED, 'subscription_required');
    return { user, profile };
  }

  const reads = (name: string) =>
    limit(app, { max: 60, timeWindow: MINUTE, keyGenerator: (request) => `${name}:${tokenKey(request)}` });

  app.get<TokenParams>(
    '/api/emergency/public/:token/',
    { config: { rateLimit: reads('page') } },
    async (request, reply) => {
      const { user, profile } = await activeOwner(request.params.token);
      const contacts = await alertedContacts(app.db, user.id, profile.contact_limit);
      const base = {
        language: languageOf(user),
        ownerName: shownName(user),
        timeZone: user.time_zone,
        location: null,
        locationError: profile.gps_enabled ? undefined : ('not_in_plan' as const),
      };
      return reply.header('cache-control', 'no-store').send({
        owner_name: shownName(user),
        time_zone: user.time_zone,
        language: languageOf(user),
        gps_enabled: profile.gps_enabled,
        countdown_seconds: user.alert_countdown_seconds,
        contacts: contacts.map((c) => ({ id: c.id, name: c.name, phone_number: c.phone_number })),
        messages: { real: alertMessage({ ...base, mode: 'real' }), test: alertMessage({ ...base, mode: 'test' }) },
      });
    },
  );

  // Test SMS 5 per hour per token; a replayed key is free. A real alert is never refused
  // here: the SMS budgets per number (sms-budget.ts) bound what it sends.
  const sendBase = limit(app, { max: 5, timeWindow: 60 * MINUTE });
  const sendLimit = sendBase && {
    ...sendBase,
    hook: 'preHandler' as const,
    keyGenerator: (request: FastifyRequest) => `send-test:${tokenKey(request)}`,
    allowList: (request: FastifyRequest) => {
      const context = contexts.get(request);
      return context?.existing !== undefined || context?.body.mode !== 'test';
    },
  };

  app.post<TokenParams>(
    '/api/emergency/public/:token/alerts/',
    {
      // Runs before the rate limit so the limit knows the mode and lets replays through.
      preHandler: async (request) => {
        const { user, profile } = await activeOwner(request.params.token);
        if (!user.email_verified) throw detailError(403, EMAIL_NOT_VERIFIED, 'email_not_verified');
        const key = idempotencyKey(request.headers['idempotency-key']);
        const body = parseWith(alertBody, request.body);
        const requestHash = hashOf(body);
        const existing = await alertByKey(app.db, user.id, key);
        if (existing) {
          const stored = await requestHashOf(app.db, existing.id);
          if (stored !== null && stored !== requestHash) throw detailError(422, KEY_REUSED, 'idempotency_key_reused');
        } else if (body.location) {
          const problem = fixTimeProblem(body.location.captured_at, app.clock.now());
          if (problem) throw fieldErrors({ location: [problem] });
        }
        contexts.set(request, { user, profile, key, body, requestHash, ...(existing ? { existing } : {}) });
      },
      config: { rateLimit: sendLimit },
    },
    async (request, reply) => {
      const { user, profile, key, body, requestHash, existing } = contexts.get(request) as SendContext;
      reply.header('cache-control', 'no-store');
      if (existing) return reply.code(200).send(await publicAlertView(app.db, existing));

      // Within the plan's limit only: after a downgrade the contacts beyond it are kept but not alerted.
      const contacts = await alertedContacts(app.db, user.id, profile.contact_limit);
      if (body.mode === 'real' && body.contact_id) throw detailError(400, TEST_CONTACT_ONLY, 'invalid');
      const recipients = body.mode === 'test' ? testRecipients(contacts, body.contact_id) : contacts;
      if (recipients.length === 0) {
        throw body.mode === 'test'
          ? detailError(400, NO_TEST_CONTACTS, 'no_test_contacts')
          : detailError(400, NO_CONTACTS, 'no_contacts');
      }
      // Without GPS in the plan no position is kept and the text says nothing of location.
      const location = profile.gps_enabled ? (body.location ?? null) : null;
      const locationError: LocationError | null = profile.gps_enabled
        ? location
          ? null
          : (body.location_error ?? null)
        : 'not_in_plan';
      const publicId = randomToken(16);
      const message = alertMessage({
        language: languageOf(user),
        ownerName: shownName(user),
        timeZone: user.time_zone,
        mode: body.mode,
        location,
        locationError,
        // Real alerts carry the live page, where contacts follow the position and answer.
        ...(body.mode === 'real' ? { liveUrl: livePageUrl(app.config.APP_URL, publicId) } : {}),
      });
      const now = app.clock.now();
      const alert: Alert = {
        id: newId(),
        public_id: publicId,
        user_id: user.id,
        mode: body.mode,
        idempotency_key: key,
        latitude: location?.latitude ?? null,
        longitude: location?.longitude ?? null,
        accuracy: location?.accuracy ?? null,
        captured_at: location?.captured_at ?? null,
        location_error: locationError === 'not_in_plan' ? null : locationError,
        message,
        created_at: now,
        resolved_at: null,
      };
      const deliveries: Delivery[] = recipients.map((contact) => ({
        id: newId(),
        alert_id: alert.id,
        contact_name: contact.name,
        phone_number: contact.phone_number,
        body: message,
        status: 'queued',
        attempts: 0,
        next_attempt_at: now,
        claimed_until: null,
        provider_message_id: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      }));
      const result = await insertAlert(app.db, alert, deliveries, {
        // Lifted with the rate limits, for benchmarks and load tests only.
        ...(app.config.BENCH_NO_RATE_LIMIT ? {} : { budget: { dialect: app.dialect, now } }),
        requestHash,
      });
      const view = await publicAlertView(app.db, result.alert);
      if (result.created) {
        // First attempt right after commit; the periodic sweep only handles retries and crashes.
        app.dispatcher.kick();
        if (alert.mode === 'real') app.background.run(() => mailOwnerAboutAlert(app, user, alert, view.deliveries));
      }
      return reply.code(result.created ? 201 : 200).send(view);
    },
  );

  app.get<{ Params: { token: string; id: string } }>(
    '/api/emergency/public/:token/alerts/:id/',
    { config: { rateLimit: reads('status') } },
    async (request, reply) => {
      // A sent alert's statuses stay readable by its link even if the plan has since ended.
      const user = await ownerByToken(app.db, request.params.token);
      if (!user) throw detailError(404, UNKNOWN_TOKEN, 'not_found');
      const alert = await alertOfUser(app.db, user.id, request.params.id);
      if (!alert) throw notFound();
      return reply.header('cache-control', 'no-store').send(await publicAlertView(app.db, alert));
    },
  );
}
