import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTestApp, dbLabel, suiteApp } from './helper.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const REF = /"\$ref":"#\/components\/schemas\/([^"]+)"/g;
const refsIn = (value: unknown) => [...JSON.stringify(value ?? {}).matchAll(REF)].map((match) => match[1] ?? '');

/** The app a setup builds, closed; what registering its routes threw, if anything. */
async function refusalOf(register: (app: Parameters<NonNullable<Parameters<typeof buildTestApp>[1]>>[0]) => void) {
  let refused: unknown;
  try {
    const t = await buildTestApp({}, (app) => {
      try {
        register(app);
      } catch (error) {
        refused = error;
      }
    });
    await t.close();
  } catch (error) {
    refused = error;
  }
  return refused;
}

describe(`each schema id of the document has one meaning (${dbLabel})`, () => {
  const t = suiteApp();

  it('documents every request part with a request schema and every answer with an answer schema', async () => {
    const document = (await t.app.inject('/api/openapi.json')).json() as OpenAPIV3_1.Document;
    const schemas = document.components?.schemas ?? {};
    for (const [url, item] of Object.entries(document.paths ?? {})) {
      for (const method of METHODS) {
        const operation = item?.[method];
        if (!operation) continue;
        // The generator names a request's variant of a schema `<id>Input`: a request part that
        // names another is one whose id another schema took.
        for (const name of refsIn([operation.parameters, operation.requestBody])) {
          expect(name, `${method} ${url} asks for ${name}`).toMatch(/Input$/);
        }
        for (const name of refsIn(operation.responses)) {
          expect(name, `${method} ${url} answers ${name}`).not.toMatch(/Input$/);
          expect(schemas, name).toHaveProperty([name]);
        }
      }
    }
  });

  it('lets a generated client send the PIN that ends a check-in, and documents its answer apart', async () => {
    const document = (await t.app.inject('/api/openapi.json')).json() as OpenAPIV3_1.Document;
    const schemas = (document.components?.schemas ?? {}) as Record<string, OpenAPIV3_1.SchemaObject>;
    const done = document.paths?.['/api/emergency/public/{token}/checkins/{id}/done/']?.post;
    const [asked] = refsIn(done?.requestBody);
    const [answered] = refsIn(done?.responses?.['200']);
    expect(Object.keys(schemas[asked ?? '']?.properties ?? {})).toEqual(['pin']);
    expect(schemas[asked ?? '']?.required ?? []).toEqual([]);
    expect(schemas[answered ?? '']?.properties).toEqual({ status: { type: 'string', const: 'done' } });
  });

  it('refuses a route whose request and answer give one id two meanings', async () => {
    const asked = z.object({ pin: z.string() }).meta({ id: 'SharedIdProbe' });
    const answered = z.object({ status: z.literal('done') }).meta({ id: 'SharedIdProbe' });
    const refused = await refusalOf((app) =>
      app.post('/api/shared-id-probe/', { schema: { body: asked, response: { 200: answered } } }, async () => ({
        status: 'done',
      })),
    );
    expect(String(refused)).toMatch(/the schema id "SharedIdProbe" is given to more than one schema/);
  });

  it('refuses a route with such a schema deep inside its body', async () => {
    const first = z.object({ at: z.number() }).meta({ id: 'NestedIdProbe' });
    const second = z.object({ at: z.string() }).meta({ id: 'NestedIdProbe' });
    const body = z.object({ fixes: z.array(z.object({ fix: first.nullish() })), other: second.optional() });
    const refused = await refusalOf((app) =>
      app.post('/api/nested-id-probe/', { schema: { body } }, async () => ({ ok: true })),
    );
    expect(String(refused)).toMatch(/the schema id "NestedIdProbe" is given to more than one schema/);
  });
});
