import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../../server/db/schema.js';
import { activateSubscription } from '../../../server/features/billing/subscriptions.js';
import type { DevOutbox } from '../../../server/providers/outbox.js';
import { createUser, type TestUser } from '../helper.js';

let serial = 0;

export interface Subscriber {
  user: TestUser;
  token: string;
  phones: string[];
}

/** A premium subscriber with `count` contacts (the first one a TEST contact) and their alert token. */
export async function subscriber(app: FastifyInstance, count = 3): Promise<Subscriber> {
  const user = await createUser(app);
  await activateSubscription(app.db, { userId: user.user.id, plan: 'premium', now: app.clock.now() });
  const phones: string[] = [];
  for (let i = 0; i < count; i += 1) {
    serial += 1;
    const phone = `+35191${String(process.pid % 1000).padStart(3, '0')}${String(serial).padStart(4, '0')}`;
    const res = await app.inject({
      method: 'POST',
      url: '/api/emergency/contacts/',
      headers: user.headers,
      payload: {
        name: i === 0 ? `TEST Contacto ${'abcdefghij'[i]}` : `Contacto ${'abcdefghij'[i]}`,
        phone_number: phone,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    phones.push(phone);
  }
  const row = await app.db.selectFrom('users').select('token').where('id', '=', user.user.id).executeTakeFirstOrThrow();
  return { user, token: row.token!, phones };
}

/** `POST /api/emergency/public/{token}/alerts/` with the given (or a new) idempotency key. */
export function sendAlert(app: FastifyInstance, token: string, options: { mode?: 'real' | 'test'; key?: string } = {}) {
  return app.inject({
    method: 'POST',
    url: `/api/emergency/public/${token}/alerts/`,
    headers: { 'idempotency-key': options.key ?? randomUUID() },
    payload: { mode: options.mode ?? 'real', location: null, location_error: 'unavailable' },
  });
}

/**
 * Every alert has all its deliveries, every delivery was handed to the provider, and
 * the outbox holds exactly one SMS per delivery: nothing lost, nothing twice.
 */
export async function expectAllSentOnce(db: Kysely<Database>, outbox: DevOutbox, contactsPerAlert?: number) {
  const deliveries = await db
    .selectFrom('deliveries')
    .innerJoin('alerts', 'alerts.id', 'deliveries.alert_id')
    .select(['deliveries.id', 'deliveries.alert_id', 'deliveries.status', 'deliveries.phone_number', 'deliveries.body'])
    .execute();
  const alerts = await db.selectFrom('alerts').select('id').execute();
  for (const alert of alerts) {
    const mine = deliveries.filter((d) => d.alert_id === alert.id);
    expect(mine.length, `alert ${alert.id} has deliveries`).toBeGreaterThan(0);
    if (contactsPerAlert !== undefined) expect(mine.length).toBeLessThanOrEqual(contactsPerAlert);
  }
  for (const delivery of deliveries) expect(['sent', 'delivered']).toContain(delivery.status);
  // Alerts of one owner may share a text, so compare counts per number and text.
  const tally = (pairs: string[]) => pairs.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());
  const sms = await alertSms(db, outbox);
  const sent = tally(sms.map((m) => `${m.to} ${m.body}`));
  const expected = tally(deliveries.map((d) => `${d.phone_number} ${d.body}`));
  expect(sms.length, 'one SMS per delivery').toBe(deliveries.length);
  expect(Object.fromEntries(sent)).toEqual(Object.fromEntries(expected));
  return deliveries.length;
}

/** The SMS inviting a contact as they are added, in either language: no alert's. */
export const INVITATION_SMS = /adicionou-o como contacto|added you as an emergency contact/;

/**
 * The outbox's alert SMS: not the notices (contacts' invitations, answers to their replies)
 * sent beside them, told apart by their number and text as the notices table holds them.
 */
export async function alertSms(db: Kysely<Database>, outbox: DevOutbox) {
  const notices = await db.selectFrom('sms_notices').select(['phone_number', 'body']).execute();
  const isNotice = new Set(notices.map((n) => `${n.phone_number} ${n.body}`));
  return outbox.sms.filter((m) => !isNotice.has(`${m.to} ${m.body}`));
}
