import type { FastifySchemaCompiler } from 'fastify';
import { type $ZodType, safeParse } from 'zod/v4/core';
import {
  answersWithDetail,
  describeIssue,
  type ErrorBody,
  type ErrorCode,
  type IssueLike,
  refusalOf,
  validationBody,
} from '../../common/api/errors.js';

export type { ErrorBody, ErrorCode };

/** An expected failure that becomes a 4xx answer with the given body. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : body.code);
  }
}

/** `{"detail": text, "code": code}` with the given status (and any parameters of the code). */
export const detailError = (
  status: number,
  detail: string,
  code: ErrorCode,
  headers?: Record<string, string>,
  params: Record<string, string | number> = {},
) => new ApiError(status, { ...params, detail, code }, headers);

/**
 * `{"field": ["message", ...], "code": code, "codes": {"field": code}}`: each field's code is
 * given in `codes` (the same `code` for every field when a plain code is given).
 */
export function fieldErrors(
  errors: Record<string, string[]>,
  code: ErrorCode | Record<string, ErrorCode> = 'invalid',
  status = 400,
): ApiError {
  const codes = typeof code === 'string' ? Object.fromEntries(Object.keys(errors).map((field) => [field, code])) : code;
  const first = Object.values(codes)[0] ?? 'invalid';
  return new ApiError(status, { ...errors, code: first, codes });
}

export const notFound = (detail = 'Not found.') => detailError(404, detail, 'not_found');
export const notAuthenticated = () =>
  detailError(401, 'Authentication credentials were not provided or are invalid.', 'not_authenticated');

/** The texts name what was sent ("panic" is not a valid choice, got list, may not be null): zod reports it only when asked. */
const PARSE_OPTIONS = { reportInput: true } as const;

/**
 * The 400 of a failed parse: a schema's fixed refusal (`refusedAs`), a header's first problem
 * as the `detail` (a header is no form field), else every field's problems (with `detail` too
 * for schemas marked `withDetail`).
 */
function validationError(schema: $ZodType, issues: readonly IssueLike[], httpPart?: string): ApiError {
  const refusal = refusalOf(schema);
  if (refusal) return new ApiError(400, refusal);
  const [first] = issues;
  if (httpPart === 'headers' && first) {
    const { code, text } = describeIssue(first);
    return detailError(400, text, code);
  }
  return new ApiError(400, validationBody(issues, { detail: answersWithDetail(schema) }));
}

/** Parses `input` with a zod schema; on failure throws the 400 every route's validation answers. */
export function parseWith<T extends $ZodType>(schema: T, input: unknown) {
  const result = safeParse(schema, input ?? {}, PARSE_OPTIONS);
  if (result.success) return result.data;
  throw validationError(schema, result.error.issues);
}

/**
 * Fastify's validator for the zod schemas of `common/api/`: the one validation path of every
 * route. A missing body is an empty object, so each required field is named in the answer.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<$ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const result = safeParse(schema, data ?? {}, PARSE_OPTIONS);
    return result.success ? { value: result.data } : { error: validationError(schema, result.error.issues, httpPart) };
  };
