import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { PlanName } from '../../server/db/schema.js';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { newId } from '../../server/lib/ids.js';
import { createUser, type TestUser } from './helper.js';

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
