import type { Transaction } from 'kysely';
import type { AlertRequest, AlertView, OwnerAlert } from '../../../common/api/alerts.js';
import { shownName } from '../../../common/profile-rules.js';
import { alertMessage, isTestContact, type LocationError } from '../../../common/sms-text.js';
import type { Config } from '../../config.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.js';
import { inWriteTransaction } from '../../db/grouped-transactions.js';
import type { Alert, Contact, Database, Db, NewAlert, NewDelivery, User } from '../../db/schema.js';
import type { JobInput } from '../../jobs/index.js';
import type { Deps } from '../../lib/deps.js';
import { detailError, fieldErrors, notFound } from '../../lib/errors.js';
import { fixTimeProblem } from '../../lib/fix-time.js';
import { orderedId, randomToken } from '../../lib/ids.js';
import { hashOf, sameRequest } from '../../lib/request-hash.js';
import { callsOf, escalationAt } from '../escalation/index.js';
import { livePageUrl } from '../live/index.js';
import { ownerLanguage, ownerOf, type TokenOwner, unknownToken } from '../owner/index.js';
import type { AlertingOwner } from './alerting-owner.js';
import { contactDeliveries } from './compose.js';
import { asClaimed, claimedOnInsert } from './deliveries.js';
import { type OwnerMailWritten, ownerMailJob } from './owner-mail.js';
import { alertByKey, alertOfUser, deliveriesOf, insertAlert, latestAlerts } from './repository.js';
import { withinBudgets } from './sms-budget.js';
import { alertView, ownerAlertView } from './views.js';

const NO_CONTACTS = 'There are no emergency contacts to alert. Add contacts first.';
const KEY_REUSED = 'This Idempotency-Key was already used for a different alert. Use a new key for a new alert.';
const NO_TEST_CONTACTS =
  'Choose the contact who gets the test SMS on the test page (or name one contact starting with TEST, for example "TEST Maria").';
const UNKNOWN_TEST_CONTACT = 'The chosen contact is not one of the contacts this link alerts.';
const TEST_CONTACT_ONLY = 'A contact can only be chosen for a test alert.';
/** How many alerts the owner's history shows. */
const HISTORY_LIMIT = 100;

/**
 * An alert of the token's owner with its statuses, readable even if the plan has since ended:
 * by its link when the link sent it, and only with the owner's proof (`requireProof`, which
 * refuses) when the owner proved it or the server fired it, since its public id opens the
 * owner's position on the live page.
 */
export async function alertStatus(
  deps: Pick<Deps, 'db'>,
  token: string,
  id: string,
  requireProof: (userId: string) => Promise<void>,
): Promise<AlertView> {
  const user = await ownerOf(deps, token);
  const alert = await alertOfUser(deps.db, user.id, id);
  if (!alert) throw notFound();
  if (alert.proven === 1) await requireProof(user.id);
  return viewOf(deps.db, alert);
}

/** An alert as its link shows it, with its deliveries. */
const viewOf = async (db: Db, alert: Alert): Promise<AlertView> =>
  alertView(alert, await deliveriesOf(db, [alert.id]), await callsOf(db, [alert.id]));

/** The owner's last alerts, newest first. */
export async function alertHistory(deps: Pick<Deps, 'db'>, user: User): Promise<OwnerAlert[]> {
  const alerts = await latestAlerts(deps.db, user.id, HISTORY_LIMIT);
  const deliveries = await deliveriesOf(
    deps.db,
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
  config: Pick<Config, 'APP_URL' | 'ESCALATION_AFTER_SECONDS'>,
  owner: TokenOwner,
  request: { key: string; body: AlertRequest; proven: boolean },
  now: number,
): { row: NewAlert; sms: (liveUrl: string | null, replyHint?: boolean) => string } {
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
  const sms = (liveUrl: string | null, replyHint = false) =>
    alertMessage({
      replyHint,
      language: ownerLanguage(user),
      ownerName: shownName(user),
      timeZone: user.time_zone,
      mode: body.mode,
      location,
      locationError,
      ...(liveUrl ? { liveUrl } : {}),
    });
  const message = sms(body.mode === 'real' ? livePageUrl(config.APP_URL, publicId) : null);
  const row: NewAlert = {
    id: orderedId(),
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
    escalation_at: body.mode === 'real' ? escalationAt(user, config, now) : null,
  };
  return { row, sms };
}

/**
 * What sending an alert needs: the database and its dialect (the SMS budgets lock per number
 * on PostgreSQL), the dispatcher that sends its SMS, what mails the owner, and the test limit.
 */
export type SendAlertDeps = Pick<
  Deps,
  'db' | 'dialect' | 'clock' | 'config' | 'dispatcher' | 'background' | 'mail' | 'log' | 'tokens' | 'jobs'
> & {
  /** Counts one test alert against the limit of the token it came by; throws the 429 once over. */
  chargeTestLimit: (token: string) => Promise<void>;
};

/**
 * Sends an alert: the alert and one delivery per recipient in one transaction (`storeAlert`),
 * its SMS sent by the dispatcher once it commits and, for a real alert, the owner's e-mail job set with it. A key already used
 * answers its alert and sends nothing (422 when it came with another request). A new
 * link-only test alert is charged to its token's test limit (429 when over); replays, real
 * alerts and the owner's proven alerts never are: the SMS budgets per number bound what they
 * send. `owner`: read with the contacts the plan alerts and the alert the key already made;
 * `token`: the link the request came by; `proven`: it carried the owner's proof.
 */
export async function sendAlert(
  deps: SendAlertDeps,
  owner: AlertingOwner,
  request: { token: string; key: string; body: AlertRequest; proven?: boolean },
): Promise<{ created: boolean; alert: AlertView }> {
  const { key, body } = request;
  const proven = request.proven ?? false;
  const existing = owner.replay;
  if (existing) {
    if (existing.request_hash !== null && !sameRequest(existing.request_hash, body)) {
      throw detailError(422, KEY_REUSED, 'idempotency_key_reused');
    }
    return { created: false, alert: await viewOf(deps.db, existing) };
  }
  const now = deps.clock.now();
  if (body.location) {
    const problem = fixTimeProblem(body.location.captured_at, now);
    if (problem) throw fieldErrors({ location: [problem] });
  }
  if (body.mode === 'test' && !proven) await deps.chargeTestLimit(request.token);

  const appUrl = deps.config.APP_URL;
  const recipients = recipientsOf(owner.contacts, body);
  const { row, sms } = newAlert(deps.config, owner, { key, body, proven }, now);
  // Sent from Alerta's number, whose replies are read: each says "reply 1 if you are on your way".
  const deliveries = contactDeliveries(appUrl, row, recipients, (liveUrl) => sms(liveUrl, true), now);
  const result = await storeAlert(deps, row, deliveries, now, undefined, owner.user);
  // A new alert is answered as it was stored (its deliveries as written, no call placed yet).
  const alert = result.created ? alertView(result.alert, result.deliveries, []) : await viewOf(deps.db, result.alert);
  return { created: result.created, alert };
}

/**
 * Whether the owner is mailed about an alert (by a job set with it, so the e-mail is never lost):
 * every real one but the duress PIN's, which the person forcing the owner may be watching for.
 */
const mailsOwner = (row: NewAlert) => row.mode === 'real' && row.reason !== 'duress';

/**
 * Stores an alert and its deliveries in one transaction, the SMS budgets applied in it: a
 * delivery to a number over them is stored `withheld` with its reason (budgets are lifted
 * with the rate limits, for benchmarks and load tests only). Each of the rest is an SMS job of the
 * job engine, written beside it: as many as the process has free sending places are claimed at
 * write (`claimAtWrite`): written `sending`, their jobs leased to this process, and sent by it as
 * soon as the transaction has committed, with no claim to find them again (one statement and, on
 * PostgreSQL, one round trip less between the press and the SMS); the jobs of any left queued are
 * claimed as places free up.
 * When the same idempotency key won a concurrent race, the unique index refuses this one and the
 * winner's alert is answered, with `created: false`; when the account was deleted meanwhile, the
 * 404 of an unknown link. `alongside` runs first in the same
 * transaction. A stored alert comes back with its deliveries as written (`queued` or `sending`,
 * or `withheld` with its reason). `owner`: the alert's owner as read for it, handed with the alert
 * and its deliveries to the owner's e-mail's run, which then reads none of them back.
 */
export async function storeAlert(
  deps: Pick<Deps, 'db' | 'dialect' | 'config' | 'dispatcher' | 'background' | 'jobs'>,
  row: NewAlert,
  deliveries: NewDelivery[],
  now: number,
  alongside?: (trx: Transaction<Database>) => Promise<void>,
  owner?: User,
): Promise<{ alert: Alert; created: true; deliveries: NewDelivery[] } | { alert: Alert; created: false }> {
  const smsPlaces = deps.dispatcher.claimAtWrite(deliveries.length);
  // The owner's e-mail, a job of its own, claimed at write too when there is a place: no claim finds it.
  const mailing = mailsOwner(row) ? deps.jobs.claimAtWrite?.('owner-alert-mail', 1) : undefined;
  let stored: { alert: Alert; created: true; deliveries: NewDelivery[] };
  try {
    stored = await inWriteTransaction(deps.db, deps.dialect, async (trx) => {
      // What must commit with the alert or not at all (a check-in marked fired); a throw rolls back.
      await alongside?.(trx);
      const allowed = deps.config.BENCH_NO_RATE_LIMIT
        ? deliveries
        : await withinBudgets(trx, deps.dialect, { alert: row, deliveries, now });
      const rows = claimedOnInsert(allowed, { slots: smsPlaces.places, now });
      // Each SMS to send is a job, written with it: those written `sending` leased to this process.
      const sending = rows.filter((d) => d.status === 'queued' || d.status === 'sending').map((d) => d.id);
      // Phoned at `escalation_at` unless a contact answers or the owner is safe first; the owner mailed at once.
      const jobs: JobInput[] = [
        ...smsPlaces.rows(sending, now),
        ...(row.escalation_at != null
          ? [{ kind: 'escalation' as const, subject: row.id, dueAt: row.escalation_at, now }]
          : []),
        ...(mailing ? mailing.rows([row.id], now) : mailsOwner(row) ? [ownerMailJob(row.id, now)] : []),
      ];
      const alert = await insertAlert(trx, row, rows, { dialect: deps.dialect, jobs });
      return { alert, created: true as const, deliveries: rows };
    });
  } catch (error) {
    smsPlaces.giveBack();
    mailing?.giveBack();
    // The account was deleted after its owner was read: its link is gone, as for any request after.
    if (isForeignKeyViolation(error)) throw unknownToken();
    if (!isUniqueViolation(error)) throw error;
    const existing = await alertByKey(deps.db, row.user_id, row.idempotency_key);
    if (!existing) throw error;
    return { alert: existing, created: false as const };
  }
  const claimed = new Map(
    stored.deliveries.filter((d) => d.status === 'sending').map((d) => [d.id, asClaimed(d, row.user_id)]),
  );
  void smsPlaces.run((id) => claimed.get(id));
  // The owner's e-mail is due now: run after the answer, awaitable with the rest of the background work.
  // Its run is handed what it would read back (the alert, the owner as read for it, the deliveries as written).
  const mail: OwnerMailWritten | undefined = owner && {
    alert: stored.alert,
    user: owner,
    deliveries: stored.deliveries,
  };
  if (mailsOwner(row)) deps.background.run(() => (mailing ? mailing.run(() => mail) : deps.jobs.runDue()));
  return stored;
}
