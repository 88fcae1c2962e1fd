// Writes docs/API.md, the readable API reference, and docs/openapi.json, the document itself
// (what `npm run lint:openapi` lints and client generators read), from the OpenAPI document the
// server generates out of the schemas in common/api/ (`npm run api:docs`). A server test checks
// both committed files are what the server serves, so neither drifts from the routes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIV3_1 } from 'openapi-types';

type Schema = OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject;
type Operation = OpenAPIV3_1.OperationObject;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const refName = (ref: string) => ref.split('/').pop() ?? ref;
const anchor = (name: string) => `schema-${name.toLowerCase()}`;
const escapeCell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A short type text for one schema: a link for a reference, `a | b` for unions, `[T]` for arrays. */
export function typeText(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if ('$ref' in schema) return `[${refName(schema.$ref)}](#${anchor(refName(schema.$ref))})`;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map((variant) => typeText(variant as Schema)).join(' \\| ');
  if (schema.enum) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' \\| ');
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  const type = Array.isArray(schema.type) ? schema.type.join(' \\| ') : schema.type;
  if (type === 'array') return `[${typeText((schema as OpenAPIV3_1.ArraySchemaObject).items as Schema)}]`;
  if (type === 'object' && !schema.properties) {
    const extra = schema.additionalProperties;
    return extra && typeof extra === 'object' ? `{ string: ${typeText(extra as Schema)} }` : 'object';
  }
  return type ?? 'any';
}

/** A field table for an object schema (a named one is looked up); a one-line type for anything else. */
function schemaBlock(schema: Schema | undefined, schemas: Record<string, Schema> = {}): string[] {
  if (schema && '$ref' in schema && schemas[refName(schema.$ref)]) {
    return [`${typeText(schema)}:`, '', ...schemaBlock(schemas[refName(schema.$ref)])];
  }
  if (!schema || '$ref' in schema || !schema.properties) return [`Type: ${typeText(schema)}`, ''];
  const required = new Set(schema.required ?? []);
  const lines = ['| field | type | required | description |', '| --- | --- | --- | --- |'];
  for (const [name, property] of Object.entries(schema.properties)) {
    const description = '$ref' in property ? '' : (property.description ?? '');
    lines.push(
      `| \`${name}\` | ${typeText(property as Schema)} | ${required.has(name) ? 'yes' : 'no'} | ${escapeCell(description)} |`,
    );
  }
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object') lines.push(`| *other fields* | ${typeText(extra as Schema)} | no | |`);
  return [...lines, ''];
}

const jsonSchemaOf = (content: Record<string, OpenAPIV3_1.MediaTypeObject> | undefined) => {
  const [type, media] = Object.entries(content ?? {})[0] ?? [];
  return type ? { type, schema: media?.schema as Schema | undefined } : undefined;
};

/** How each security scheme of the document is said (server/plugins/api.ts). */
const SCHEME_TEXTS: Record<string, string> = {
  bearer: 'the session (`Authorization: Bearer <access>`)',
  deviceKey: 'a device key (`X-Alerta-Device-Key`)',
  stripeSignature: 'the payment provider’s signature (`Stripe-Signature`)',
  twilioSignature: 'Twilio’s signature (`X-Twilio-Signature`)',
};

/** The operation's `security` in words: its ways in, one of which is enough. */
export function authenticationText(security: OpenAPIV3_1.SecurityRequirementObject[] = []): string {
  const ways = security.filter((way) => Object.keys(way).length > 0);
  const said = ways.map((way) =>
    Object.keys(way)
      .map((name) => SCHEME_TEXTS[name] ?? `\`${name}\``)
      .join(' and '),
  );
  if (said.length === 0) return 'Authentication: none.';
  const either = said.join(' or ');
  return ways.length < security.length
    ? `Authentication: the token in the path; the owner’s proof counts too: ${either}.`
    : `Authentication: ${either}.`;
}

function operationBlock(method: string, url: string, operation: Operation, schemas: Record<string, Schema>): string[] {
  const lines = [`### \`${method.toUpperCase()} ${url}\``, ''];
  if (operation.summary) lines.push(`${operation.summary} (\`${operation.operationId}\`).`, '');
  if (operation.description) lines.push(operation.description, '');
  lines.push(authenticationText(operation.security), '');
  const parameters = (operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[];
  if (parameters.length > 0) {
    lines.push('| parameter | in | type | required |', '| --- | --- | --- | --- |');
    for (const parameter of parameters) {
      lines.push(
        `| \`${parameter.name}\` | ${parameter.in} | ${typeText(parameter.schema as Schema)} | ${parameter.required ? 'yes' : 'no'} |`,
      );
    }
    lines.push('');
  }
  const body = jsonSchemaOf((operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined)?.content);
  if (body) lines.push(`Request body (\`${body.type}\`):`, '', ...schemaBlock(body.schema, schemas));
  lines.push('| status | meaning | body |', '| --- | --- | --- |');
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const answer = response as OpenAPIV3_1.ResponseObject;
    const content = jsonSchemaOf(answer.content);
    lines.push(`| ${status} | ${escapeCell(answer.description ?? '')} | ${content ? typeText(content.schema) : '—'} |`);
  }
  return [...lines, ''];
}

/** The whole reference as Markdown: routes grouped by tag, then every named schema. */
export function renderReference(document: OpenAPIV3_1.Document): string {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const byTag = new Map<string, string[]>();
  for (const [url, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), ...operationBlock(method, url, operation, schemas)]);
    }
  }
  const lines = [
    `# ${document.info.title} reference`,
    '',
    '<!-- Generated by `npm run api:docs` from GET /api/openapi.json; do not edit by hand. -->',
    '',
    document.info.description ?? '',
    '',
    'The machine-readable document (OpenAPI 3.1) is served at `GET /api/openapi.json`.',
    '',
  ];
  for (const [tag, block] of [...byTag.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`## ${tag}`, '', ...block);
  }
  lines.push('## Schemas', '');
  for (const name of Object.keys(schemas).sort()) {
    const schema = schemas[name] as OpenAPIV3_1.SchemaObject;
    lines.push(`<a id="${anchor(name)}"></a>`, '', `### ${name}`, '');
    if (schema.description) lines.push(schema.description, '');
    lines.push(...schemaBlock(schema));
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REFERENCE_PATH = path.join(ROOT, 'docs/API.md');
export const DOCUMENT_PATH = path.join(ROOT, 'docs/openapi.json');
/** What openapi-typescript makes of the document: the types tests/server/openapi-client.test.ts calls the API with. */
export const CLIENT_TYPES_PATH = path.join(ROOT, 'tests/server/openapi-types.ts');

/** `text` laid out as Biome lays out the file at `file` (what `npm run lint` asks of it). */
export const formatted = (text: string, file: string) =>
  execFileSync(path.join(ROOT, 'node_modules/.bin/biome'), ['format', `--stdin-file-path=${file}`], {
    cwd: ROOT,
    input: text,
    encoding: 'utf8',
  });

/** The document as openapi-typescript's types (`paths`, `components`, `operations`), formatted. */
export async function clientTypes(document: OpenAPIV3_1.Document): Promise<string> {
  // Loaded only here: it brings TypeScript 5's compiler (scripts/openapi-typescript/package.json).
  const { default: openapiTS, astToString } = await import('@alerta/openapi-typescript');
  const header =
    '// Generated by `npm run api:docs` from GET /api/openapi.json with openapi-typescript; do not edit.\n';
  return formatted(header + astToString(await openapiTS(document)), CLIENT_TYPES_PATH);
}

async function main() {
  const { buildApp } = await import('../server/app.js');
  const { loadConfig } = await import('../server/config.js');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-api-docs-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const app = await buildApp({ config, jwtSecret: 'x'.repeat(32), logger: false });
    await app.ready();
    const document = (await app.inject('/api/openapi.json')).json() as OpenAPIV3_1.Document;
    writeFileSync(REFERENCE_PATH, renderReference(document));
    writeFileSync(DOCUMENT_PATH, formatted(JSON.stringify(document), DOCUMENT_PATH));
    writeFileSync(CLIENT_TYPES_PATH, await clientTypes(document));
    await app.close();
    for (const file of [REFERENCE_PATH, DOCUMENT_PATH, CLIENT_TYPES_PATH]) {
      console.log(`api:docs: wrote ${path.relative(process.cwd(), file)}`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
