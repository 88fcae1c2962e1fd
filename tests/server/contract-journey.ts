import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { linkIn } from './accounts-helpers.js';
import { lisbonAt, ownerWithContacts } from './alerts-fixtures.js';
import { deviceProof } from './checkin-fixtures.js';
import type { TestApp } from './helper.js';
import type { Exchange, PrismProxy } from './prism-proxy.js';

const PASSWORD = 'Contract-Pass-41';
const NEW_PASSWORD = 'Contract-Pass-42';

type Json = Record<string, unknown>;
const json = (exchange: Exchange) => exchange.body as Json;

/** Every call the journeys make, in order, for the checks that follow them. */
export type Journal = Exchange[];

/** Calls `operation` through the proxy, notes the exchange and checks the status the journey expects. */
function caller(prism: PrismProxy, journal: Journal) {
  return async (operation: string, status: number, target: string, options: Parameters<PrismProxy['call']>[2] = {}) => {
    const exchange = await prism.call(operation, target, options);
    journal.push(exchange);
    expect(exchange.status, `${operation} ${target}: ${JSON.stringify(exchange.body)}`).toBe(status);
    return exchange;
  };
}

/** Sign-up to deletion: accounts, sessions, devices, reset, billing, contacts and the link. */
export async function accountJourney(t: TestApp, prism: PrismProxy, journal: Journal): Promise<void> {
  const call = caller(prism, journal);
  await call('getHealth', 200, '/api/health');
  await call('getReadiness', 200, '/api/ready');
  await call('getConfig', 200, '/api/config/');

  const email = 'contract@example.com';
  const fields = { username: 'contract', email, password1: PASSWORD, password2: PASSWORD, accept_terms: true };
  await call('register', 400, '/api/users/registration/', { json: { username: 'contract' } });
  await call('register', 201, '/api/users/registration/', { json: fields });
  await t.app.background.idle();
  const key = new URL(linkIn(t.app.outbox.emails[0]?.text ?? '')).pathname.split('/').at(-2) ?? '';
  await call('verifyEmail', 400, '/api/users/verify-email/%00/');
  // Prism's proxy follows a redirect itself (it forwards with node-fetch), so the 302 is read here.
  const verified = await t.app.inject(`/api/users/verify-email/${key}/`);
  expect(verified.statusCode).toBe(302);
  await call('resendVerification', 400, '/api/users/resend-verification/', { json: {} });
  await call('resendVerification', 200, '/api/users/resend-verification/', { json: { email } });

  await call('login', 401, '/api/users/auth/login/', { json: { username: 'contract', password: 'Wrong-Guess-77' } });
  const login = json(
    await call('login', 200, '/api/users/auth/login/', { json: { username: 'contract', password: PASSWORD } }),
  );
  await call('refreshTokens', 401, '/api/users/auth/refresh/', { json: { refresh: 'not-a-token' } });
  const pair = json(await call('refreshTokens', 200, '/api/users/auth/refresh/', { json: { refresh: login.refresh } }));
  const session = { authorization: `Bearer ${pair.access}` };

  await call('getMe', 401, '/api/users/me/');
  await call('getMe', 200, '/api/users/me/', { headers: session });
  await call('updateMe', 400, '/api/users/me/', {
    method: 'PATCH',
    headers: session,
    json: { time_zone: 'Nowhere/Else' },
  });
  await call('updateMe', 200, '/api/users/me/', { method: 'PATCH', headers: session, json: { display_name: 'Ana' } });
  await call('createDeviceKey', 401, '/api/users/me/device-keys/', { method: 'POST' });
  await call('createDeviceKey', 201, '/api/users/me/device-keys/', { method: 'POST', headers: session });
  await call('listDevices', 401, '/api/users/me/devices/');
  const devices = (await call('listDevices', 200, '/api/users/me/devices/', { headers: session })).body as Json[];
  await call('removeDevice', 404, `/api/users/me/devices/${randomUUID()}/`, { method: 'DELETE', headers: session });

  await call('startCheckout', 400, '/api/billing/checkout/', { headers: session, json: { plan: 'gold' } });
  const checkout = json(
    await call('startCheckout', 200, '/api/billing/checkout/', { headers: session, json: { plan: 'basic' } }),
  );
  expect((await t.app.inject({ method: 'POST', url: `${checkout.url}/pay`, payload: {} })).statusCode).toBe(200);
  await call('changePlan', 400, '/api/billing/plan/', { headers: session, json: { plan: 'gold' } });
  await call('changePlan', 200, '/api/billing/plan/', { headers: session, json: { plan: 'premium' } });
  await call('openBillingPortal', 401, '/api/billing/portal/', { method: 'POST' });
  await call('openBillingPortal', 200, '/api/billing/portal/', { method: 'POST', headers: session });
  await call('receivePaymentEvent', 400, '/api/billing/webhook/', { json: { type: 'checkout.session.completed' } });

  await call('addContact', 400, '/api/emergency/contacts/', { headers: session, json: { name: 'Ana' } });
  const contact = json(
    await call('addContact', 201, '/api/emergency/contacts/', {
      headers: session,
      json: { name: 'Ana Silva', phone_number: '+351912345678', relationship: 'Irmã' },
    }),
  );
  await call('listContacts', 401, '/api/emergency/contacts/');
  await call('listContacts', 200, '/api/emergency/contacts/', { headers: session });
  const unknown = `/api/emergency/contacts/${randomUUID()}/`;
  await call('alertContactFirst', 404, `${unknown}alert-first/`, { method: 'POST', headers: session });
  await call('alertContactFirst', 200, `/api/emergency/contacts/${contact.id}/alert-first/`, {
    method: 'POST',
    headers: session,
  });
  await call('inviteContact', 404, `${unknown}invite/`, { method: 'POST', headers: session });
  // Added, the contact was invited at once: again within the week is refused, after it sent.
  await call('inviteContact', 429, `/api/emergency/contacts/${contact.id}/invite/`, {
    method: 'POST',
    headers: session,
  });
  const weekAgo = t.app.clock.now() - 8 * 24 * 3600_000;
  await t.app.db.updateTable('contacts').set({ invited_at: weekAgo }).where('id', '=', String(contact.id)).execute();
  await call('inviteContact', 200, `/api/emergency/contacts/${contact.id}/invite/`, {
    method: 'POST',
    headers: session,
  });
  await call('deleteContact', 404, unknown, { method: 'DELETE', headers: session });
  await call('deleteContact', 204, `/api/emergency/contacts/${contact.id}/`, { method: 'DELETE', headers: session });
  await call('rotateLinkToken', 401, '/api/users/token/rotate/', { method: 'POST' });
  await call('rotateLinkToken', 200, '/api/users/token/rotate/', { method: 'POST', headers: session });

  await call('requestPasswordReset', 400, '/api/users/reset-password/', { json: {} });
  await call('requestPasswordReset', 200, '/api/users/reset-password/', { json: { email } });
  await t.app.background.idle();
  const [, , uid, token] = new URL(linkIn(t.app.outbox.emails[0]?.text ?? '')).pathname.split('/');
  const reset = { uid, token, new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD };
  await call('confirmPasswordReset', 400, '/api/users/reset-password-confirm/', { json: { ...reset, token: 'x' } });
  await call('confirmPasswordReset', 200, '/api/users/reset-password-confirm/', { json: reset });

  const again = json(
    await call('login', 200, '/api/users/auth/login/', { json: { username: 'contract', password: NEW_PASSWORD } }),
  );
  const fresh = { authorization: `Bearer ${again.access}` };
  // The reset ended every device key: this login issues one to remove.
  expect(devices.length).toBeGreaterThan(0);
  await call('createDeviceKey', 201, '/api/users/me/device-keys/', { method: 'POST', headers: fresh });
  const [device] = (await call('listDevices', 200, '/api/users/me/devices/', { headers: fresh })).body as Json[];
  await call('removeDevice', 204, `/api/users/me/devices/${device?.id}/`, { method: 'DELETE', headers: fresh });
  await call('logout', 401, '/api/users/auth/logout/', { method: 'POST' });
  await call('logout', 204, '/api/users/auth/logout/', { method: 'POST', headers: fresh });
  const last = json(
    await call('login', 200, '/api/users/auth/login/', { json: { username: 'contract', password: NEW_PASSWORD } }),
  );
  const lastSession = { authorization: `Bearer ${last.access}` };
  await call('logoutEverywhere', 401, '/api/users/auth/logout-all/', { method: 'POST' });
  await call('logoutEverywhere', 204, '/api/users/auth/logout-all/', { method: 'POST', headers: lastSession });
  const final = json(
    await call('login', 200, '/api/users/auth/login/', { json: { username: 'contract', password: NEW_PASSWORD } }),
  );
  const finalSession = { authorization: `Bearer ${final.access}` };
  const change = { new_password1: `${NEW_PASSWORD}-2`, new_password2: `${NEW_PASSWORD}-2` };
  await call('changePassword', 400, '/api/users/me/password/', {
    headers: finalSession,
    json: { ...change, current_password: 'Wrong-Guess-77' },
  });
  await call('changePassword', 204, '/api/users/me/password/', {
    headers: finalSession,
    json: { ...change, current_password: NEW_PASSWORD },
  });
  await call('deleteAccount', 401, '/api/users/delete-account/', { method: 'DELETE' });
  await call('deleteAccount', 204, '/api/users/delete-account/', {
    method: 'DELETE',
    headers: { authorization: `Bearer ${final.access}` },
  });
}

/** The emergency side: the page, an alert and its live page, a check-in, the daily check-in. */
export async function emergencyJourney(t: TestApp, prism: PrismProxy, journal: Journal): Promise<void> {
  const call = caller(prism, journal);
  const owner = await ownerWithContacts(t.app);
  const proof = await deviceProof(t.app, owner);
  const link = `/api/emergency/public/${owner.token}`;
  const nowhere = `/api/emergency/public/t${randomUUID()}`;

  await call('getEmergencyPage', 404, `${nowhere}/`);
  await call('getEmergencyPage', 200, `${link}/`);
  const key = { 'idempotency-key': randomUUID() };
  await call('sendAlert', 400, `${link}/alerts/`, {
    headers: { 'idempotency-key': 'not-a-uuid' },
    json: { mode: 'real' },
  });
  await call('sendAlert', 400, `${link}/alerts/`, {
    headers: key,
    json: { mode: 'real', location: { latitude: 38.7, longitude: -9.1, accuracy: 5 } },
  });
  const alert = json(
    await call('sendAlert', 201, `${link}/alerts/`, {
      headers: key,
      json: { mode: 'real', location: lisbonAt(t.app) },
    }),
  );
  await call('getAlert', 404, `${link}/alerts/${randomUUID()}/`);
  await call('getAlert', 200, `${link}/alerts/${alert.id}/`);
  // The owner's own alert: its statuses (and its public id) only with the owner's proof.
  const own = json(
    await call('sendAlert', 201, `${link}/alerts/`, {
      headers: { 'idempotency-key': randomUUID(), ...proof },
      json: { mode: 'real', location: lisbonAt(t.app) },
    }),
  );
  await call('getAlert', 403, `${link}/alerts/${own.id}/`);
  await call('getAlert', 200, `${link}/alerts/${own.id}/`, { headers: proof });
  await call('listOpenAlerts', 403, `${link}/open-alerts/`);
  await call('listOpenAlerts', 200, `${link}/open-alerts/`, { headers: proof });
  await call('listAlerts', 401, '/api/emergency/alerts/');
  await call('listAlerts', 200, '/api/emergency/alerts/', { headers: owner.headers });
  t.clock.advance(1000);
  const position = { latitude: 38.71, longitude: -9.14, accuracy: 10, captured_at: t.app.clock.now() };
  await call('addAlertPosition', 404, `${link}/alerts/${randomUUID()}/location/`, { json: position });
  await call('addAlertPosition', 201, `${link}/alerts/${alert.id}/location/`, { headers: proof, json: position });
  await call('getSenderLive', 404, `${link}/alerts/${randomUUID()}/live/`);
  await call('getSenderLive', 200, `${link}/alerts/${alert.id}/live/`);
  const live = `/api/live/${alert.public_id}`;
  await call('getLiveView', 404, `/api/live/${randomUUID()}/`);
  await call('getLiveView', 200, `${live}/`);
  await call('followLiveView', 404, `/api/live/${randomUUID()}/events`);
  await call('acknowledgeAlert', 404, `/api/live/${randomUUID()}/ack/`, { json: { name: 'Ana' } });
  await call('acknowledgeAlert', 201, `${live}/ack/`, { json: { name: 'Ana' } });
  await call('resolveAlert', 403, `${link}/alerts/${alert.id}/resolve/`, { json: { notify: true } });
  await call('resolveAlert', 200, `${link}/alerts/${alert.id}/resolve/`, { headers: proof, json: { notify: true } });

  const checkins = `${link}/checkins/`;
  await call('startCheckin', 400, checkins, {
    headers: { 'idempotency-key': randomUUID() },
    json: { duration_seconds: 1 },
  });
  const checkin = json(
    await call('startCheckin', 201, checkins, {
      headers: { 'idempotency-key': randomUUID() },
      json: { duration_seconds: 1800 },
    }),
  );
  await call('getCurrentCheckin', 404, `${nowhere}/checkins/current/`);
  await call('getCurrentCheckin', 200, `${checkins}current/`);
  const one = `${checkins}${checkin.id}`;
  await call('addCheckinPosition', 403, `${one}/location/`, { json: lisbonAt(t.app) });
  await call('addCheckinPosition', 204, `${one}/location/`, { headers: proof, json: lisbonAt(t.app) });
  await call('extendCheckin', 403, `${one}/extend/`, { json: { seconds: 600 } });
  await call('extendCheckin', 200, `${one}/extend/`, { headers: proof, json: { seconds: 600 } });
  await call('endCheckin', 403, `${one}/done/`, { json: { pin: '1234' } });
  // The PIN a generated client sends: the body the document gives the request, not its answer.
  await call('endCheckin', 200, `${one}/done/`, { headers: proof, json: { pin: '1234' } });
  const subscription = {
    endpoint: 'https://fcm.googleapis.com/fcm/send/contract',
    keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'a'.repeat(22) },
  };
  await call('subscribeToReminders', 403, `${link}/push-subscriptions/`, { json: subscription });
  await call('subscribeToReminders', 201, `${link}/push-subscriptions/`, { headers: proof, json: subscription });

  const daily = { enabled: true, time: '09:00', every_days: 1 };
  await call('getDailyCheckin', 401, '/api/users/me/daily-checkin/');
  await call('setDailyCheckin', 400, '/api/users/me/daily-checkin/', {
    method: 'PUT',
    headers: owner.headers,
    json: { ...daily, time: '25:00' },
  });
  await call('setDailyCheckin', 200, '/api/users/me/daily-checkin/', {
    method: 'PUT',
    headers: owner.headers,
    json: daily,
  });
  await call('getDailyCheckin', 200, '/api/users/me/daily-checkin/', { headers: owner.headers });
  await call('getDailyStatus', 404, `${nowhere}/daily/`);
  await call('getDailyStatus', 200, `${link}/daily/`, { headers: proof });
  await call('dailyOk', 403, `${link}/daily/ok/`, { json: {} });
  await call('dailyOk', 200, `${link}/daily/ok/`, { headers: proof, json: {} });

  // The provider's callbacks, which this server (no Twilio account) does not take.
  await call('receiveSmsStatus', 404, '/api/sms/status/', { form: { MessageSid: 'SM1', MessageStatus: 'delivered' } });
  await call('receiveSms', 404, '/api/sms/inbound/', { form: { From: '+351912345678', Body: 'OK' } });
  await call('receiveCallKeys', 404, '/api/voice/gather/', { form: { CallSid: 'CA1', Digits: '1' } });
  await call('receiveCallStatus', 404, '/api/voice/status/', { form: { CallSid: 'CA1', CallStatus: 'completed' } });
}
