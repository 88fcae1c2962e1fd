import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import type { OpenAPIV3_1 } from 'openapi-types';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_TYPES_PATH, clientTypes } from '../../scripts/api-reference.js';
import { linkIn, PASSWORD } from './accounts-helpers.js';
import { dbLabel, outboxJsonPath, suiteApp } from './helper.js';
import type { paths } from './openapi-types.js';

interface Outbox {
  emails: { to: string; text: string }[];
  sms: { to: string; body: string }[];
}

describe(`a client generated from the OpenAPI document, against a running server (${dbLabel})`, () => {
  const t = suiteApp();
  let origin = '';
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  /** What the dev outbox captured, read over HTTP as a developer would. */
  const outbox = async () => (await (await fetch(`${origin}${outboxJsonPath}`)).json()) as Outbox;

  it('types its calls with what openapi-typescript makes of the served document (tests/server/openapi-types.ts)', async () => {
    // Asked in-process: generating blocks this process for seconds, and a kept-alive socket of the
    // client's pool would meet the server's keep-alive timeout right after.
    const document = (await t.app.inject('/api/openapi.json')).json() as OpenAPIV3_1.Document;
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8'), 'npm run api:docs rewrites it').toBe(await clientTypes(document));
  });

  it('registers, verifies the e-mail, logs in, subscribes, adds a contact and sends an alert through it', async () => {
    // Every call labelled as JSON, bodiless ones too, as clients generated from a document often do.
    const api = createClient<paths>({ baseUrl: origin, headers: { 'content-type': 'application/json' } });

    const registration = await api.POST('/api/users/registration/', {
      body: {
        username: 'generated',
        email: 'generated@example.com',
        password1: PASSWORD,
        password2: PASSWORD,
        accept_terms: true,
      },
    });
    expect(registration.response.status).toBe(201);
    const mail = (await outbox()).emails.find((email) => email.to === 'generated@example.com');
    const key = new URL(linkIn(mail?.text ?? '')).pathname.split('/').at(-2) ?? '';
    const verified = await api.GET('/api/users/verify-email/{key}/', { params: { path: { key } }, redirect: 'manual' });
    expect(verified.response.status).toBe(302);
    expect(verified.response.headers.get('location')).toBe('/email-confirmed');

    const login = await api.POST('/api/users/auth/login/', { body: { username: 'generated', password: PASSWORD } });
    expect(login.response.status).toBe(200);
    const access = login.data?.access ?? '';
    api.use({
      onRequest: ({ request }) => {
        request.headers.set('authorization', `Bearer ${access}`);
        return request;
      },
    });

    const checkout = await api.POST('/api/billing/checkout/', { body: { plan: 'basic' } });
    expect(checkout.data?.url).toMatch(/^\/dev\/checkout\/[^/]+$/);
    // The simulated provider's checkout is a page of the dev server, not of the API.
    const paid = await fetch(`${origin}${checkout.data?.url}/pay`, { method: 'POST' });
    expect(await paid.json()).toMatchObject({ status: 'paid' });
    const me = await api.GET('/api/users/me/');
    expect(me.data?.profile).toMatchObject({ has_premium: true, plan: 'basic' });
    const token = me.data?.token ?? '';
    expect(token).not.toBe('');

    const contact = await api.POST('/api/emergency/contacts/', {
      body: { name: 'Ana Silva', phone_number: '+351 912 345 678', relationship: 'Irmã' },
    });
    expect(contact.response.status).toBe(201);
    expect(contact.data).toMatchObject({ name: 'Ana Silva', phone_number: '+351912345678', alerted: true });

    const alert = await api.POST('/api/emergency/public/{token}/alerts/', {
      params: { path: { token }, header: { 'idempotency-key': randomUUID() } },
      body: { mode: 'real', location: null, location_error: 'denied' },
    });
    expect(alert.response.status).toBe(201);
    expect(alert.data).toMatchObject({ mode: 'real', proven: true, deliveries: [expect.anything()] });
    await t.app.background.idle();
    expect((await outbox()).sms.some((sms) => sms.to === '+351912345678')).toBe(true);

    // Bodiless calls under the JSON label: the contact goes, the session ends.
    const removed = await api.DELETE('/api/emergency/contacts/{id}/', {
      params: { path: { id: contact.data?.id ?? '' } },
    });
    expect(removed.response.status).toBe(204);
    expect((await api.GET('/api/emergency/contacts/')).data).toEqual([]);
    expect((await api.POST('/api/users/auth/logout/')).response.status).toBe(204);
    const after = await api.GET('/api/users/me/');
    expect(after.response.status).toBe(401);
    expect(after.error).toMatchObject({ code: 'not_authenticated' });
  });
});
