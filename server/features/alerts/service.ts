import type { FastifyInstance } from 'fastify';
import type { AlertRequest, AlertView, OwnerAlert } from '../../../common/api/alerts.js';
import { shownName } from '../../../common/profile-rules.js';
import { type AlertLanguage, alertMessage, isTestContact, type LocationError } from '../../../common/sms-text.js';
import type { Alert, Contact, NewAlert, User } from '../../db/schema.js';
import { detailError, fieldErrors, notFound } from '../../lib/errors.js';
import { newId, randomToken } from '../../lib/ids.js';
import { type SubscriptionProfile, subscriptionProfile } from '../billing/subscriptions.js';
import { alertedContacts } from '../contacts/repository.js';
import { contactKeyHash, contactPageUrl, livePageUrl, newContactKey } from '../live/links.js';
import { queuedDelivery } from './deliveries.js';
import { fixTimeProblem } from './fix-time.js';
import { mailOwnerAboutAlert } from './owner-mail.js';
import { alertByKey, alertOfUser, deliveriesOf, insertAlert, latestAlerts, ownerByToken } from './repository.js';
import { hashOf, sameRequest } from './request-hash.js';
import { alertView, ownerAlertView } from './views.js';

const UNKNOWN_TOKEN = 'This alert link is unknown or has been replaced by a new one.';
const SUBSCRIPTION_REQUIRED = 'An active subscription is required to send alerts.';
const NO_CONTACTS = 'There are no emergency contacts to alert. Add contacts first.';
const EMAIL_NOT_VERIFIED = 'Confirm your e-mail address before your contacts can be alerted.';
const KEY_REUSED = 'This Idempotency-Key was already used for a different alert. Use a new key for a new alert.';
const NO_TEST_CONTACTS =
  'Choose the contact who gets the test SMS on the test page (or name one contact starting with TEST, for example "TEST Maria").';
const UNKNOWN_TEST_CONTACT = 'The chosen contact is not one of the contacts this link alerts.';
const TEST_CONTACT_ONLY = 'A contact can only be chosen for a test alert.';
/** How many alerts the owner's history shows. */
const HISTORY_LIMIT = 100;

/** A token's owner with the plan that decides what their alerts carry. */
export interface TokenOwner {
  user: User;
  profile: SubscriptionProfile;
}

/** The language of the owner's SMS and pages. */
export const ownerLanguage = (user: User): AlertLanguage => (user.language === 'en' ? 'en' : 'pt');

/** The owner of a token, whatever their plan: 404 for an unknown or rotated token. */
export async function ownerOf(app: FastifyInstance, token: string): Promise<User> {
  const user = await ownerByToken(app.db, token);
  if (!user) throw detailError(404, UNKNOWN_TOKEN, 'not_found');
  return user;
}

/** The token's owner with an active subscription: 404 for an unknown token, 402 without a plan. */
export async function activeOwner(app: FastifyInstance, token: string): Promise<TokenOwner> {
  const user = await ownerOf(app, token);
  const profile = await subscriptionProfile(app.db, user, app.clock.now(), app.config);
  if (!profile.has_premium) throw detailError(402, SUBSCRIPTION_REQUIRED, 'subscription_required');
  return { user, profile };
}

/** The owner an alert may be sent for: active, and with a confirmed e-mail address (403 otherwise). */
export async function alertingOwner(app: FastifyInstance, token: string): Promise<TokenOwner> {
  const owner = await activeOwner(app, token);
  if (!owner.user.email_verified) throw detailError(403, EMAIL_NOT_VERIFIED, 'email_not_verified');
  return owner;
}

/**
 * The owner an alert request is for. A key already used answers its alert whatever has
 * changed since (a plan that lapsed, a new e-mail address): the replay is the same request,
 * so only an unknown token (404) stops it. A new alert needs `alertingOwner`.
 */
export async function requestingOwner(app: FastifyInstance, token: string, key: unknown): Promise<TokenOwner> {
  const user = await ownerOf(app, token);
  if (typeof key === 'string' && (await alertByKey(app.db, user.id, key))) {
    return { user, profile: await subscriptionProfile(app.db, user, app.clock.now(), app.config) };
  }
  return alertingOwner(app, token);
}

/** An alert of the token's owner with its statuses, readable by its link even if the plan has since ended. */
export async function alertStatus(app: FastifyInstance, token: string, id: string): Promise<AlertView> {
  const user = await ownerOf(app, token);
  const alert = await alertOfUser(app.db, user.id, id);
  if (!alert) throw notFound();
  return viewOf(app, alert);
}

/** An alert as its link shows it, with its deliveries. */
const viewOf = async (app: FastifyInstance, alert: Alert): Promise<AlertView> =>
  alertView(alert, await deliveriesOf(app.db, [alert.id]));

/** The owner's last alerts, newest first. */
export async function alertHistory(app: FastifyInstance, user: User): Promise<OwnerAlert[]> {
  const alerts = await latestAlerts(app.db, user.id, HISTORY_LIMIT);
  const deliveries = await deliveriesOf(
    app.db,
    alerts.map((a) => a.id),
  );
  return alerts.map((alert) =>
    ownerAlertView(
      alert,
      deliveries.filter((d) => d.alert_id === alert.id),
    ),
  );
}

/**
 * Who gets the SMS, within the plan's limit only (after a downgrade the contacts beyond it
 * are kept but not alerted). A test goes to the one contact chosen on the test page, else to
 * every contact whose name starts with TEST: never more than a real alert.
 */
function recipientsOf(contacts: Contact[], body: AlertRequest): Contact[] {
  if (body.mode === 'real') {
    if (body.contact_id) throw detailError(400, TEST_CONTACT_ONLY, 'invalid');
    if (contacts.length === 0) throw detailError(400, NO_CONTACTS, 'no_contacts');
    return contacts;
  }
  if (!body.contact_id) {
    const named = contacts.filter((c) => isTestContact(c.name));
    if (named.length === 0) throw detailError(400, NO_TEST_CONTACTS, 'no_test_contacts');
    return named;
  }
  const chosen = contacts.find((c) => c.id === body.contact_id);
  if (!chosen) throw detailError(400, UNKNOWN_TEST_CONTACT, 'unknown_test_contact');
  return [chosen];
}

/**
 * The alert row: without GPS in the plan no position is kept and the text says nothing of
 * location; a real alert's SMS carries the live page, where contacts follow and answer.
 */
function newAlert(
  app: FastifyInstance,
  owner: TokenOwner,
  request: { key: string; body: AlertRequest; proven: boolean },
  now: number,
): { row: NewAlert; sms: (liveUrl: string | null) => string } {
  const { key, body, proven } = request;
  const { user, profile } = owner;
  const location = profile.gps_enabled ? (body.location ?? null) : null;
  const locationError: LocationError | null = !profile.gps_enabled
    ? 'not_in_plan'
    : location
      ? null
      : (body.location_error ?? null);
  const publicId = randomToken(16);
  // The SMS text with a given live link: each contact's SMS has its own (see sendAlert).
  const sms = (liveUrl: string | null) =>
    alertMessage({
      language: ownerLanguage(user),
      ownerName: shownName(user),
      timeZone: user.time_zone,
      mode: body.mode,
      location,
      locationError,
      ...(liveUrl ? { liveUrl } : {}),
    });
  const message = sms(body.mode === 'real' ? livePageUrl(app.config.APP_URL, publicId) : null);
  const row: NewAlert = {
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
    last_update_at: null,
    request_hash: hashOf(body),
    proven: proven ? 1 : 0,
  };
  return { row, sms };
}

/**
 * Sends an alert: the alert and one queued delivery per recipient in one transaction, the
 * dispatcher woken after commit and, for a real alert, the owner mailed. A key already used
 * answers its alert and sends nothing (422 when it came with another request).
 * `chargeTestLimit` counts a new link-only test alert against the token's test limit (429
 * when over); replays, real alerts and the owner's proven alerts never reach it: the SMS
 * budgets per number bound what they send. `proven`: the request carried the owner's proof.
 */
export async function sendAlert(
  app: FastifyInstance,
  owner: TokenOwner,
  request: { key: string; body: AlertRequest; proven?: boolean },
  chargeTestLimit: () => Promise<void>,
): Promise<{ created: boolean; alert: AlertView }> {
  const { user, profile } = owner;
  const { key, body } = request;
  const proven = request.proven ?? false;
  const existing = await alertByKey(app.db, user.id, key);
  if (existing) {
    if (existing.request_hash !== null && !sameRequest(existing.request_hash, body)) {
      throw detailError(422, KEY_REUSED, 'idempotency_key_reused');
    }
    return { created: false, alert: await viewOf(app, existing) };
  }
  const now = app.clock.now();
  if (body.location) {
    const problem = fixTimeProblem(body.location.captured_at, now);
    if (problem) throw fieldErrors({ location: [problem] });
  }
  if (body.mode === 'test' && !proven) await chargeTestLimit();

  const recipients = recipientsOf(await alertedContacts(app.db, user.id, profile.contact_limit), body);
  const { row, sms } = newAlert(app, owner, { key, body, proven }, now);
  // A real alert's SMS carries each contact's own live link: their "on my way" always has a slot.
  const deliveries = recipients.map((contact) => {
    const key = row.mode === 'real' ? newContactKey() : null;
    return {
      ...queuedDelivery({
        alertId: row.id,
        recipient: { contact_name: contact.name, phone_number: contact.phone_number },
        body: key ? sms(contactPageUrl(app.config.APP_URL, row.public_id, key)) : row.message,
        now,
      }),
      contact_key_hash: key ? contactKeyHash(key) : null,
    };
  });
  const result = await insertAlert(app.db, row, deliveries, {
    // Lifted with the rate limits, for benchmarks and load tests only.
    ...(app.config.BENCH_NO_RATE_LIMIT ? {} : { budget: { dialect: app.dialect, now } }),
  });
  const alert = await viewOf(app, result.alert);
  if (result.created) {
    // First attempt right after commit; the periodic sweep only handles retries and crashes.
    app.dispatcher.kick();
    if (result.alert.mode === 'real') {
      app.background.run(() => mailOwnerAboutAlert(app, user, result.alert, alert.deliveries));
    }
  }
  return { created: result.created, alert };
}
