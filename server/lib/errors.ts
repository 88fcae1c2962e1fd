import type { z } from 'zod';

/** An error body in the Django REST shape the web app's error catalogue matches on, plus a stable code. */
export type ErrorBody =
  | { detail: string; code: string; [extra: string]: unknown }
  | ({ code: string } & Record<string, string[] | string>);

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

/** `{"detail": text, "code": code}` with the given status. */
export const detailError = (status: number, detail: string, code: string, headers?: Record<string, string>) =>
  new ApiError(status, { detail, code }, headers);

/** `{"field": ["message", ...], "code": code}`; several fields may fail together. */
export const fieldErrors = (errors: Record<string, string[]>, code = 'invalid', status = 400) =>
  new ApiError(status, { ...errors, code } as ErrorBody);

/** `{"non_field_errors": [message], "code": code}`. */
export const nonFieldError = (message: string, code: string, status = 400) =>
  fieldErrors({ non_field_errors: [message] }, code, status);

export const notFound = (detail = 'Not found.') => detailError(404, detail, 'not_found');
export const notAuthenticated = () =>
  detailError(401, 'Authentication credentials were not provided or are invalid.', 'not_authenticated');

/**
 * Parses `input` with a zod schema; on failure throws a 400 with every problem keyed
 * by field (`non_field_errors` for problems with the body as a whole).
 */
export function parseWith<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const field = issue.path.length > 0 ? String(issue.path[0]) : 'non_field_errors';
    const message =
      issue.code === 'invalid_type' && issue.input === undefined ? 'This field is required.' : issue.message;
    errors[field] ??= [];
    if (!errors[field].includes(message)) errors[field].push(message);
  }
  throw fieldErrors(errors, 'invalid');
}
