import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import type { DeliveryKind, NewAlert, PlanName } from '../../server/db/schema.js';
import { contactDeliveries } from '../../server/features/alerts/compose.js';
import { smsJob } from '../../server/features/alerts/deliveries-repository.js';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { ManualClock } from '../../server/lib/clock.js';
import { newId } from '../../server/lib/ids.js';
import { buildTestApp, createUser, type TestApp, type TestUser } from './helper.js';

export interface Owner extends TestUser {
  token: string;
}

/** A user with an active plan, a personal token and the given contacts (inserted directly). */
export async function ownerWithContacts(
  app: FastifyInstance,
  options: { plan?: PlanName | null; contacts?: [string, string][]; language?: 'pt' | 'en'; trialDays?: number } = {},
): Promise<Owner> {
  const owner = await createUser(app, { language: options.language ?? 'en' });
  const now = app.clock.now();
  if (options.plan !== null) {
    await activateSubscription(app.db, {
      userId: owner.user.id,
      plan: options.plan ?? 'premium',
      now,
      ...(options.trialDays ? { trialDays: options.trialDays } : {}),
    });
  } else {
    await app.db
      .updateTable('users')
      .set({ token: `t${newId()}` })
      .where('id', '=', owner.user.id)
      .execute();
  }
  const contacts = options.contacts ?? [
    ['Ana Silva', '+351912345678'],
    ['Rui Costa', '+351913456789'],
  ];
  for (const [i, [name, phone]] of contacts.entries()) {
    await app.db
      .insertInto('contacts')
      .values({ id: newId(), user_id: owner.user.id, name, phone_number: phone, relationship: '', created_at: now + i })
      .execute();
  }
  const row = await app.db.selectFrom('users').select('token').where('id', '=', owner.user.id).executeTakeFirst();
  return { ...owner, token: row?.token as string };
}

/**
 * A user on `plan` who added `contacts` through the API (each answered 201), with the ids of those
 * contacts and the personal token the plan issued.
 */
export async function subscriberWithContacts(
  app: FastifyInstance,
  plan: PlanName,
  contacts: [name: string, phone: string][],
): Promise<Owner & { contactIds: string[] }> {
  const owner = await createUser(app);
  await activateSubscription(app.db, { userId: owner.user.id, plan, now: app.clock.now() });
  const contactIds: string[] = [];
  for (const [name, phone] of contacts) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/emergency/contacts/',
      headers: owner.headers,
      payload: { name, phone_number: phone },
    });
    expect(res.statusCode).toBe(201);
    contactIds.push(res.json().id as string);
  }
  const row = await app.db
    .selectFrom('users')
    .select('token')
    .where('id', '=', owner.user.id)
    .executeTakeFirstOrThrow();
  return { ...owner, token: row.token!, contactIds };
}

/** An alerts row without a location, to insert directly; `fields` override the defaults. */
export const alertRow = (userId: string, fields: Partial<NewAlert> = {}): NewAlert => ({
  id: newId(),
  public_id: newId(),
  user_id: userId,
  mode: 'real',
  idempotency_key: newId(),
  latitude: null,
  longitude: null,
  accuracy: null,
  captured_at: null,
  location_error: null,
  message: 'help',
  created_at: Date.now(),
  resolved_at: null,
  ...fields,
});

/**
 * Builds the app before the describe's tests and closes it after them, and gives `use` the app and a
 * clock an hour ahead of the app's, for the test's own dispatchers and job engines: the app's own
 * find nothing due that was written on that clock, and never take over its leases.
 */
export function appWithClockAhead(use: (ahead: { t: TestApp; clock: ManualClock }) => void) {
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await buildTestApp();
    use({ t, clock: new ManualClock(t.clock.now() + 3600_000) });
  });
  afterAll(async () => {
    await t?.close();
  });
}

/**
 * A real alert's SMS to `to` (its text carries the contact's live-link key), or a delivery of `kind`
 * with a shared text, inserted with its alert and its job due at `now`; `read` reads the delivery.
 */
export async function queuedSms(
  app: FastifyInstance,
  { appUrl, to, now, kind = 'alert' }: { appUrl: string; to: string; now: number; kind?: DeliveryKind },
) {
  const owner = await ownerWithContacts(app, { contacts: [] });
  const alert = alertRow(owner.user.id, { created_at: now });
  const [delivery] = contactDeliveries(
    appUrl,
    alert,
    [{ name: 'Ana', phone_number: to }],
    (url) => `Help: ${url}`,
    now,
  );
  if (!delivery) throw new Error('no delivery');
  const row = kind === 'alert' ? delivery : { ...delivery, kind, body: 'Ana is safe now.', contact_key_hash: null };
  await insertAlert(app.db, alert, [row], { jobs: [smsJob(row, now)] });
  const read = () => app.db.selectFrom('deliveries').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
  return { id: row.id, read };
}

/** The ids of the alerts stored for a user. */
export const alertsOf = (app: FastifyInstance, userId: string) =>
  app.db.selectFrom('alerts').select('id').where('user_id', '=', userId).execute();

/** The ids of the SMS usage records counted for a user. */
export const usageOf = (app: FastifyInstance, userId: string) =>
  app.db.selectFrom('usage_records').select('id').where('user_id', '=', userId).execute();

/** 14:03 UTC on the last day that time has passed by `now`: a fix from the last 24 hours, as the server accepts. */
function lastFixTime(now = Date.now()): string {
  const at = new Date(now);
  at.setUTCHours(14, 3, 0, 0);
  if (at.getTime() > now) at.setUTCDate(at.getUTCDate() - 1);
  return at.toISOString().replace('.000Z', 'Z');
}

export const LISBON = {
  latitude: 38.7222524,
  longitude: -9.1393366,
  accuracy: 12,
  captured_at: lastFixTime(),
};

/** LISBON as a fix the server accepts at the app's time (tests move the clock by days). */
export const lisbonAt = (app: FastifyInstance) => ({ ...LISBON, captured_at: lastFixTime(app.clock.now()) });

/** Posts an alert for a token, with a fresh Idempotency-Key unless one is given. */
export function postAlert(
  app: FastifyInstance,
  token: string,
  body: Record<string, unknown> = { mode: 'real', location: LISBON },
  key: string | null = randomUUID(),
) {
  return app.inject({
    method: 'POST',
    url: `/api/emergency/public/${token}/alerts/`,
    headers: key === null ? {} : { 'idempotency-key': key },
    payload: body,
  });
}

/** Polls until `check` passes or `timeoutMs` of real time runs out (receipts arrive on real timers). */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
