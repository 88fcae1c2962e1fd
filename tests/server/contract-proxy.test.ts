import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountJourney, emergencyJourney, type Journal } from './contract-journey.js';
import { dbLabel, suiteApp } from './helper.js';
import { type PrismProxy, prismProxy } from './prism-proxy.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * Operations the journeys reach through the proxy only with a refusal: the provider's signed callbacks (a server
 * with the provider's account takes them: tests/server/twilio*.test.ts, stripe.test.ts) and the
 * live page's event stream, which stays open (tests/server/live-events.test.ts).
 */
const REFUSED_ONLY = new Set([
  // A redirect: Prism's proxy follows it (contract-journey.ts reads the 302 without it).
  'verifyEmail',
  'receivePaymentEvent',
  'receiveSmsStatus',
  'receiveSms',
  'receiveCallKeys',
  'receiveCallStatus',
  'followLiveView',
]);
/** Operations that refuse nothing of their own (the request line aside). */
const NOTHING_TO_REFUSE = new Set(['getHealth', 'getReadiness', 'getConfig']);

describe(`Stoplight's Prism between a whole journey and the server (${dbLabel})`, () => {
  const t = suiteApp();
  const journal: Journal = [];
  let prism: PrismProxy;
  let operations: string[] = [];
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const document = (await t.app.inject('/api/openapi.json')).json() as OpenAPIV3_1.Document;
    operations = Object.values(document.paths ?? {}).flatMap((item) =>
      METHODS.flatMap((method) => (item?.[method]?.operationId ? [item[method].operationId] : [])),
    );
    prism = await prismProxy(t.app);
  }, 120_000);
  afterAll(() => prism?.close());

  it('walks every operation, its answers and its refusals, through the proxy', async () => {
    await accountJourney(t, prism, journal);
    await emergencyJourney(t, prism, journal);
  }, 120_000);

  it('finds every answer as the document says, refusals included', () => {
    const broken = journal.filter((exchange) => exchange.response.length > 0);
    expect(broken.map(({ operation, status, response }) => ({ operation, status, response }))).toEqual([]);
  });

  it('finds every request the server accepted allowed by the document', () => {
    const accepted = journal.filter((exchange) => exchange.status < 400 && exchange.request.length > 0);
    expect(accepted.map(({ operation, status, request }) => ({ operation, status, request }))).toEqual([]);
  });

  it('covered each operation of the document with an answer and a refusal', () => {
    const answered = new Set(journal.filter((e) => e.status < 400).map((e) => e.operation));
    const refused = new Set(journal.filter((e) => e.status >= 400 && e.status < 500).map((e) => e.operation));
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((op) => !answered.has(op) && !REFUSED_ONLY.has(op))).toEqual([]);
    expect(operations.filter((op) => !refused.has(op) && !NOTHING_TO_REFUSE.has(op))).toEqual([]);
    // The journey names each call by the operation Prism matched: no call missed its route.
    expect([...answered, ...refused].filter((op) => !operations.includes(op))).toEqual([]);
  });
});
