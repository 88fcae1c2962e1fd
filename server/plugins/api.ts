import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createJsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler } from 'fastify-type-provider-zod';
import { zodValidatorCompiler } from '../lib/errors.js';
import { refuseSharedSchemaIds } from './schema-ids.js';

/** The meaning of each answer's status, in place of the generator's "Default Response". */
const STATUS_MEANINGS: Record<string, string> = {
  200: 'OK.',
  201: 'Created.',
  204: 'Done; no body.',
  302: 'Redirect to a page of the app.',
  400: 'Invalid request: field-keyed texts or a detail, each with a stable code.',
  401: 'Not authenticated, or the credentials are wrong.',
  402: 'An active subscription is needed.',
  403: 'Forbidden.',
  404: 'Not found.',
  409: 'Conflict with the current state.',
  410: 'Gone: no longer accepts changes.',
  422: 'Understood but refused.',
  429: 'Rate limited: try again after Retry-After seconds.',
  502: 'A provider (payments) did not answer: try again.',
  503: 'Briefly unavailable: try again after Retry-After seconds.',
};

type Document = ReturnType<typeof jsonSchemaTransformObject>;

/** The schemes the routes' `security` names (common/api/shared.ts, SECURITY). */
const SECURITY_SCHEMES = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The access token of a session (`POST /api/users/auth/login/`, renewed by `…/auth/refresh/`).',
  },
  deviceKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Alerta-Device-Key',
    description:
      'A device key the owner’s emergency page was issued while signed in (`POST /api/users/me/device-keys/`): the owner’s proof on that phone, beside the link.',
  },
  stripeSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Stripe-Signature',
    description: 'The payment provider’s signature of the raw event, checked before anything is read.',
  },
  twilioSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Twilio-Signature',
    description: 'Twilio’s signature of the URL it was given and every form field, checked before anything is read.',
  },
} as const;

/**
 * What any route may answer before it runs (server/plugins/errors.ts): the request line, a
 * header, the URL or the body could not be read. Routes list their own 4xx answers beside it.
 */
const REQUEST_REFUSED = {
  description:
    'The request could not be read: `bad_request`, `bad_url`, `uri_too_long`, `headers_too_large`, `request_timeout`, `parse_error`, `payload_too_large` or `unsupported_media_type`.',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

/** Every operation with the answers any request may get, and the server it is served from. */
function withEveryRequestsAnswers(document: Document, serverUrl: string): Document {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item ?? {})) {
      const responses = (operation as { responses?: Record<string, unknown> }).responses;
      if (responses && !responses['4XX']) responses['4XX'] = REQUEST_REFUSED;
    }
  }
  // A self-hosted product has no one address: each server names its own APP_URL.
  const server = {
    url: '{appUrl}',
    description: 'This server, at its APP_URL.',
    variables: { appUrl: { default: serverUrl, description: 'The server’s APP_URL (its public origin).' } },
  };
  return { ...document, servers: [server] };
}

/** The generated document with every answer described by its status. */
function describeStatuses(document: Document): Document {
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item ?? {})) {
      const responses = (operation as { responses?: Record<string, { description?: string }> }).responses ?? {};
      for (const [status, response] of Object.entries(responses)) {
        if (!response.description || response.description === 'Default Response') {
          response.description = STATUS_MEANINGS[status] ?? 'Answer.';
        }
      }
    }
  }
  return document;
}

const REF = /"#\/components\/schemas\/([^"]+)"/g;

/**
 * The document without the schemas no route reaches (the generator writes an input and an
 * output variant of every named schema, and most are only ever one of the two), the others by
 * name: the registry lists them in the order their modules happened to load.
 */
function withoutUnusedSchemas(document: Document): Document {
  const components = 'components' in document ? document.components : undefined;
  const schemas = (components?.schemas ?? {}) as Record<string, unknown>;
  const used = new Set<string>();
  const pending = [...JSON.stringify(document.paths ?? {}).matchAll(REF)].map((match) => match[1] ?? '');
  while (pending.length > 0) {
    const name = pending.pop() ?? '';
    if (used.has(name)) continue;
    used.add(name);
    for (const match of JSON.stringify(schemas[name] ?? {}).matchAll(REF)) pending.push(match[1] ?? '');
  }
  if (components) {
    const kept = Object.keys(schemas).filter((name) => used.has(name));
    components.schemas = Object.fromEntries(
      kept.sort().map((name) => [name, schemas[name]]),
    ) as typeof components.schemas;
  }
  return document;
}

/** Where the OpenAPI document of every `/api/` route is served. */
export const OPENAPI_PATH = '/api/openapi.json';

/**
 * The API contract at work: routes validate requests and serialise answers with the zod
 * schemas of `common/api/`, and the same schemas make the OpenAPI 3.1 document. Registered
 * before any route, so the document sees every one (pages and dev tools are hidden from it).
 */
export default fp(
  async function api(app: FastifyInstance) {
    app.setValidatorCompiler(zodValidatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    // Clients that send `Content-Type: application/json` on every call (as generated ones do)
    // send it on a DELETE or a logout with no body too: an empty body is no body, and the route's
    // schema decides (a required body names its missing fields). Anything else parses as Fastify's
    // own parser does, prototype poisoning refused.
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body: string, done) =>
      body.length === 0 ? done(null, undefined) : parseJson(request, body, done),
    );
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Alerta API',
          version: app.appVersion,
          description:
            'One-tap emergency alert. Errors use the Django REST shape (`detail`, `non_field_errors` or field-keyed arrays of texts) and always carry a stable `code`.',
        },
        components: { securitySchemes: SECURITY_SCHEMES },
      },
      hideUntagged: false,
      transform: createJsonSchemaTransform({ skipList: [OPENAPI_PATH] }),
      // Made at the first request for the document: by then APP_URL names the port bound.
      transformObject: (document) =>
        withoutUnusedSchemas(
          withEveryRequestsAnswers(describeStatuses(jsonSchemaTransformObject(document)), app.config.APP_URL),
        ),
    });
    // Only the API: pages, the dev outbox and checkout simulator are not part of the contract.
    // A route whose schemas give one id two meanings is refused when it is registered, so
    // neither the server nor `npm run api:docs` starts with a document that names the wrong one.
    app.addHook('onRoute', (route) => {
      if (!route.url.startsWith('/api/')) {
        route.schema = { ...route.schema, hide: true };
      }
      refuseSharedSchemaIds(route.schema, `${route.method} ${route.url}`);
    });
    app.get(OPENAPI_PATH, { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'no-cache').send(app.swagger()),
    );
  },
  { name: 'api', dependencies: [] },
);
