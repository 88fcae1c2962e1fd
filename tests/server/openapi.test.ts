import { readFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../common/api/errors.js';
import { DOCUMENT_PATH, REFERENCE_PATH, renderReference } from '../../scripts/api-reference.js';
import { ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';

type Operation = OpenAPIV3_1.OperationObject;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every route of DESIGN.md §3 and the ones the product added, as the document names them. */
const DOCUMENTED = [
  'POST /api/users/registration/',
  'GET /api/users/verify-email/{key}/',
  'POST /api/users/resend-verification/',
  'POST /api/users/auth/login/',
  'POST /api/users/auth/refresh/',
  'POST /api/users/auth/logout/',
  'GET /api/users/me/',
  'PATCH /api/users/me/',
  'POST /api/users/me/device-keys/',
  'POST /api/users/reset-password/',
  'POST /api/users/reset-password-confirm/',
  'DELETE /api/users/delete-account/',
  'POST /api/users/token/rotate/',
  'GET /api/users/me/devices/',
  'DELETE /api/users/me/devices/{id}/',
  'POST /api/users/auth/logout-all/',
  'GET /api/config/',
  'GET /api/emergency/contacts/',
  'POST /api/emergency/contacts/',
  'POST /api/emergency/contacts/{id}/alert-first/',
  'POST /api/emergency/contacts/{id}/invite/',
  'DELETE /api/emergency/contacts/{id}/',
  'POST /api/billing/checkout/',
  'POST /api/billing/plan/',
  'POST /api/billing/portal/',
  'POST /api/billing/webhook/',
  'GET /api/emergency/public/{token}/',
  'POST /api/emergency/public/{token}/alerts/',
  'GET /api/emergency/public/{token}/alerts/{id}/',
  'GET /api/emergency/alerts/',
  'POST /api/emergency/public/{token}/alerts/{id}/location/',
  'POST /api/emergency/public/{token}/alerts/{id}/resolve/',
  'GET /api/live/{publicId}/',
  'POST /api/live/{publicId}/ack/',
  'POST /api/sms/status/',
  'POST /api/sms/inbound/',
];

/** Routes that take no JSON body: everything else that writes documents one. */
const NO_BODY = new Set([
  'POST /api/users/auth/logout/',
  'POST /api/users/auth/logout-all/',
  'POST /api/users/me/device-keys/',
  'POST /api/users/token/rotate/',
  'POST /api/emergency/contacts/{id}/alert-first/',
  'POST /api/emergency/contacts/{id}/invite/',
  'POST /api/billing/portal/',
  'POST /api/billing/webhook/',
  'POST /api/sms/status/',
  'POST /api/emergency/public/{token}/alerts/{id}/live/',
]);

function operations(document: OpenAPIV3_1.Document): [string, Operation][] {
  return Object.entries(document.paths ?? {}).flatMap(([url, item]) =>
    METHODS.flatMap((method) => (item?.[method] ? [[`${method.toUpperCase()} ${url}`, item[method]] as const] : [])),
  ) as [string, Operation][];
}

describe(`the OpenAPI document (${dbLabel})`, () => {
  const t = suiteApp();
  const documentOf = async () => {
    const response = await t.app.inject('/api/openapi.json');
    expect(response.statusCode).toBe(200);
    return response.json() as OpenAPIV3_1.Document;
  };

  it('is OpenAPI 3.1 for this version, documents every API route and nothing else', async () => {
    const document = await documentOf();
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe(t.app.appVersion);
    const names = operations(document).map(([name]) => name);
    for (const route of DOCUMENTED) expect(names, route).toContain(route);
    for (const name of names) expect(name, 'only /api/ routes').toMatch(/^[A-Z]+ \/api\//);
    expect(names).not.toContain('GET /api/openapi.json');
  });

  it('gives every route its schemas: a tag, the request body, a success answer and its errors', async () => {
    const document = await documentOf();
    for (const [name, operation] of operations(document)) {
      const responses = (operation.responses ?? {}) as Record<string, OpenAPIV3_1.ResponseObject>;
      // A route without a schema in common/api/ has no tag.
      expect(operation.tags?.length, `${name} has a schema`).toBeGreaterThan(0);
      const statuses = Object.keys(responses);
      expect(
        statuses.some((status) => /^[23]/.test(status)),
        `${name} documents its success answer`,
      ).toBe(true);
      const writes = /^(POST|PATCH|PUT) /.test(name);
      if (writes && !NO_BODY.has(name)) expect(operation.requestBody, `${name} documents its body`).toBeDefined();
      for (const status of statuses.filter((s) => /^[45]/.test(s))) {
        const body = responses[status]?.content?.['application/json'];
        expect(body?.schema, `${name} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('describes the error body with every stable code', async () => {
    const document = await documentOf();
    const schemas = (document.components?.schemas ?? {}) as Record<string, OpenAPIV3_1.SchemaObject>;
    const error = schemas.Error ?? {};
    const properties = (error.properties ?? {}) as Record<string, OpenAPIV3_1.SchemaObject>;
    expect(error.required).toContain('code');
    expect(properties.code?.enum).toEqual([...ERROR_CODES]);
  });

  it('names every operation for the clients generated from it, summarises it and says who may call it', async () => {
    const document = await documentOf();
    const schemes = document.components?.securitySchemes ?? {};
    const ids = new Set<string>();
    for (const [name, operation] of operations(document)) {
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(operation.operationId ?? ''), `${name}: ${operation.operationId} is taken`).toBe(false);
      ids.add(operation.operationId ?? '');
      expect(operation.summary, name).toMatch(/^[A-Z]/);
      expect(operation.security, name).toBeInstanceOf(Array);
      for (const way of operation.security ?? [])
        for (const scheme of Object.keys(way)) expect(schemes).toHaveProperty(scheme);
      const refusals = Object.keys(operation.responses ?? {}).filter((status) => status.startsWith('4'));
      expect(refusals, `${name} answers the refusals of any request`).toContain('4XX');
    }
    const byId = Object.fromEntries(operations(document).map(([, operation]) => [operation.operationId, operation]));
    const session = [{ bearer: [] }];
    const ownerProof = [{ bearer: [] }, { deviceKey: [] }];
    expect(byId.login?.security).toEqual([]);
    expect(byId.listContacts?.security).toEqual(session);
    expect(byId.deleteAccount?.security).toEqual(session);
    expect(byId.sendAlert?.security).toEqual([{}, ...ownerProof]);
    expect(byId.resolveAlert?.security).toEqual(ownerProof);
    expect(byId.endCheckin?.security).toEqual(ownerProof);
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.deviceKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Alerta-Device-Key' });
  });

  it('names this server, at its APP_URL', async () => {
    const document = await documentOf();
    expect(document.servers).toEqual([
      expect.objectContaining({
        url: '{appUrl}',
        variables: { appUrl: expect.objectContaining({ default: t.config.APP_URL }) },
      }),
    ]);
  });

  it('matches the committed docs/openapi.json, what npm run lint:openapi lints (npm run api:docs rewrites it)', async () => {
    const document = await documentOf();
    const committed = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as OpenAPIV3_1.Document;
    // Written by a server at the default APP_URL: everything else is the same.
    expect(committed).toEqual({ ...document, servers: committed.servers });
    expect(committed.servers?.[0]?.variables?.appUrl?.default).toBe('http://localhost:8080');
  });

  it('matches the committed reference page, docs/API.md (npm run api:docs rewrites it)', async () => {
    const document = await documentOf();
    expect(readFileSync(REFERENCE_PATH, 'utf8')).toBe(renderReference(document));
  });

  it('answers a body that breaks a schema with the Django REST shape and a code per field', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/users/auth/login/',
      payload: [1, 2],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      non_field_errors: ['Invalid data. Expected a dictionary, but got list.'],
      code: 'not_an_object',
      codes: { non_field_errors: 'not_an_object' },
    });
  });

  it('says a choice left out or null is required or null, and a number out of range its bound', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351964000009']] });
    const missing = await postAlert(t.app, owner.token, { location: null });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      mode: ['This field is required.'],
      code: 'required',
      codes: { mode: 'required' },
    });
    const nulls = await postAlert(t.app, owner.token, { mode: null, location: null });
    expect(nulls.json()).toEqual({ mode: ['This field may not be null.'], code: 'null', codes: { mode: 'null' } });
    const far = await postAlert(t.app, owner.token, {
      mode: 'real',
      location: { latitude: 91, longitude: 'east', accuracy: -1, captured_at: t.clock.now() },
    });
    expect(far.statusCode).toBe(400);
    expect(far.json()).toEqual({
      'location.latitude': ['Ensure this value is less than or equal to 90.'],
      'location.longitude': ['A valid number is required.'],
      'location.accuracy': ['Ensure this value is greater than or equal to 0.'],
      code: 'max_value',
      codes: {
        'location.latitude': 'max_value',
        'location.longitude': 'not_a_number',
        'location.accuracy': 'min_value',
      },
    });
  });

  it('names a field inside another by its path: a fix without its time is location.captured_at', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351964000010']] });
    const untimed = { latitude: 38.7, longitude: -9.1, accuracy: 5 };
    const missing = await postAlert(t.app, owner.token, { mode: 'real', location: untimed });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({
      'location.captured_at': ['This field is required.'],
      code: 'required',
      codes: { 'location.captured_at': 'required' },
    });
  });

  it('says what is wrong with a new password even when another field is missing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/users/registration/',
      payload: { username: 'gap', password1: '1234', password2: '1234', accept_terms: true },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      email: ['This field is required.'],
      password1: [
        'This password is too short. It must contain at least 8 characters.',
        'This password is entirely numeric.',
      ],
      code: 'required',
      codes: { email: 'required', password1: 'password_too_short' },
    });
  });
});
