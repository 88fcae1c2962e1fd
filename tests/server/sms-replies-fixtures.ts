import type { FastifyInstance } from 'fastify';
import { OUTBOX_KEY } from './helper.js';

/** A contact's SMS reply through the dev outbox's reply route (the same code as Twilio's webhook). */
export async function replySms(app: FastifyInstance, from: string, body: string) {
  const res = await app.inject({
    method: 'POST',
    url: `/dev/outbox/sms/reply/?key=${OUTBOX_KEY}`,
    payload: { from, body },
  });
  if (res.statusCode !== 200) throw new Error(`reply not taken: ${res.statusCode} ${res.body}`);
  return (res.json() as { outcome: string }).outcome;
}

/** The SMS the outbox captured to `phone`, oldest first, once the jobs due now have run. */
export async function smsTo(app: FastifyInstance, phone: string): Promise<string[]> {
  await app.jobs.runDue();
  return app.outbox.sms
    .filter((sms) => sms.to === phone)
    .map((sms) => sms.body)
    .reverse();
}

/** Adds a contact through the API as `headers`' user. */
export const addContact = (app: FastifyInstance, headers: Record<string, string>, name: string, phone: string) =>
  app.inject({ method: 'POST', url: '/api/emergency/contacts/', headers, payload: { name, phone_number: phone } });

/** The owner's contacts as Setup lists them. */
export async function contactStates(app: FastifyInstance, headers: Record<string, string>) {
  const res = await app.inject({ method: 'GET', url: '/api/emergency/contacts/', headers });
  return Object.fromEntries(
    (res.json() as { phone_number: string; state: string }[]).map((c) => [c.phone_number, c.state]),
  );
}
