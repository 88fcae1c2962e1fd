import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { hashPassword } from '../../server/features/accounts/passwords.js';
import { type Owner, ownerWithContacts } from './alerts-fixtures.js';

// Shared by the check-in tests: an owner with the proof the emergency page sends, the calls, and
// the work a check-in leaves for later.

/** The owner's proof as the emergency page sends it: a device key its session issued (it outlives the session). */
export type DeviceProof = { 'x-alerta-device-key': string };

/** Issues a device key with the owner's session, as the page's sign-in does. */
export async function deviceProof(app: FastifyInstance, owner: Owner): Promise<DeviceProof> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/users/me/device-keys/',
    headers: owner.headers,
    payload: {},
  });
  expect(res.statusCode, res.body).toBe(201);
  return { 'x-alerta-device-key': res.json().device_key as string };
}

export const checkinsPath = (token: string) => `/api/emergency/public/${token}/checkins/`;

/** Starts a check-in, with the link alone (raising needs no proof) or the owner's `proof`. */
export const startCheckin = (
  app: FastifyInstance,
  token: string,
  options: { body?: object; ip?: string; key?: string; proof?: object } = {},
) =>
  app.inject({
    method: 'POST',
    url: checkinsPath(token),
    headers: { 'idempotency-key': options.key ?? randomUUID(), ...(options.proof ?? {}) },
    payload: options.body ?? { duration_seconds: 1800 },
    ...(options.ip ? { remoteAddress: options.ip } : {}),
  });

/** `done`, `extend` or `location` on a check-in, with `proof` headers (none: the link alone). */
export const checkinCall = (
  app: FastifyInstance,
  token: string,
  id: string,
  action: 'done' | 'extend' | 'location',
  options: { payload?: object; proof?: object; ip?: string } = {},
) =>
  app.inject({
    method: 'POST',
    url: `${checkinsPath(token)}${id}/${action}/`,
    headers: { ...(options.proof ?? {}) },
    payload: options.payload ?? {},
    ...(options.ip ? { remoteAddress: options.ip } : {}),
  });

/** An owner with contacts on numbers of their own, and a device key: the proof the page sends. */
export type CheckinOwner = Owner & { phones: string[]; proof: DeviceProof };

let numbers = 0;
/** An owner with `contacts` contacts (each a new number) and a device key of theirs. */
export async function checkinOwner(
  app: FastifyInstance,
  options: { contacts?: number; language?: 'pt' | 'en' } = {},
): Promise<CheckinOwner> {
  const phones = Array.from({ length: options.contacts ?? 1 }, () => {
    numbers += 1;
    return `+35193${String(numbers).padStart(7, '0')}`;
  });
  const o = await ownerWithContacts(app, {
    contacts: phones.map((phone, i) => [`Contact ${i}`, phone]),
    language: options.language ?? 'en',
  });
  return Object.assign(o, { phones, proof: await deviceProof(app, o) });
}

/** The time `at` shows on a clock in `timeZone` ("HH:MM"): a daily check-in's time, or the time an SMS gives. */
export const clockTime = (at: number | Date, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);

/** The SMS the owner's contacts got. */
export const smsTo = (app: FastifyInstance, owner: CheckinOwner) =>
  app.outbox.sms.filter((sms) => owner.phones.includes(sms.to));

/** Runs what is due (check-in timers, their alerts' SMS, e-mails) and waits for it. */
export async function settle(app: FastifyInstance): Promise<void> {
  await app.jobs.runDue();
  await app.dispatcher.drain();
  await app.background.idle();
}

/** Sets the owner's check-in PIN and duress PIN (hashed, as /me stores them). */
export async function setPins(app: FastifyInstance, owner: Owner, pin: string, duress: string): Promise<void> {
  await app.db
    .updateTable('users')
    .set({ checkin_pin_hash: await hashPassword(pin), duress_pin_hash: await hashPassword(duress) })
    .where('id', '=', owner.user.id)
    .execute();
}

/** Subscribes a browser of the owner's (with their device key) to push reminders; its endpoint. */
export async function subscribedBrowser(app: FastifyInstance, owner: CheckinOwner, name: string): Promise<string> {
  const endpoint = `https://push.example.net/${name}-${owner.user.id}`;
  const res = await app.inject({
    method: 'POST',
    url: `/api/emergency/public/${owner.token}/push-subscriptions/`,
    headers: owner.proof,
    payload: { endpoint, keys: { p256dh: 'B'.repeat(87), auth: 'a'.repeat(22) } },
  });
  expect(res.statusCode, res.body).toBe(201);
  return endpoint;
}
