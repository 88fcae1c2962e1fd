import type { FastifySchema } from 'fastify';
import { $ZodType, globalRegistry } from 'zod/v4/core';

/** Schemas already walked: the contract's schemas are the same objects for every app of a process. */
const checked = new WeakSet<$ZodType>();

/** The schemas directly inside one: a definition's fields that hold schemas, lists of them or an object's shape. */
function innerSchemas(schema: $ZodType): $ZodType[] {
  const def = schema._zod.def as unknown as Record<string, unknown>;
  const inner: $ZodType[] = def.type === 'lazy' ? [(schema._zod as unknown as { innerType: $ZodType }).innerType] : [];
  for (const value of Object.values(def)) {
    const values = value instanceof $ZodType ? [value] : Array.isArray(value) ? value : [];
    if (value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof $ZodType)) {
      values.push(...Object.values(value));
    }
    for (const candidate of values) if (candidate instanceof $ZodType) inner.push(candidate);
  }
  return inner;
}

/** Throws when `schema`, or a schema inside it, carries an id the registry gives to another schema. */
function refuseSharedIds(schema: $ZodType, route: string): void {
  const pending = [schema];
  while (pending.length > 0) {
    const next = pending.pop() as $ZodType;
    if (checked.has(next)) continue;
    const id = globalRegistry.get(next)?.id;
    if (typeof id === 'string' && globalRegistry._idmap.get(id) !== next) {
      throw new Error(`${route}: the schema id "${id}" is given to more than one schema; give each its own id.`);
    }
    checked.add(next);
    pending.push(...innerSchemas(next));
  }
}

/**
 * Throws when a schema the route uses (its request parts and answers, and every schema inside
 * them) carries an `id` the registry gives to another schema. The document names each schema by
 * its id: two schemas under one id would publish one of them for both (a request body
 * documented as the answer).
 */
export function refuseSharedSchemaIds(schema: FastifySchema | undefined, route: string): void {
  if (!schema) return;
  const { response, ...request } = schema as Record<string, unknown>;
  const parts = [...Object.values(request), ...Object.values((response ?? {}) as Record<string, unknown>)];
  for (const part of parts) if (part instanceof $ZodType) refuseSharedIds(part, route);
}
