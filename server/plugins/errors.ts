import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { isDatabaseUnavailable } from '../lib/db-errors.js';
import { ApiError } from '../lib/errors.js';

/** Framework error codes that are the client's fault, with the text we answer. */
const clientErrors: Record<string, { status: number; detail: string; code: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, detail: 'Malformed JSON body.', code: 'parse_error' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, detail: 'Empty JSON body.', code: 'parse_error' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, detail: 'Request body is too large.', code: 'payload_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, detail: 'Unsupported media type.', code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, detail: 'Invalid Content-Length.', code: 'parse_error' },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, detail: 'Invalid Content-Type.', code: 'parse_error' },
  FST_ERR_BAD_URL: { status: 400, detail: 'Malformed URL.', code: 'bad_url' },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, detail: 'Bad request.', code: 'bad_request' },
  // PostgreSQL refusing text it cannot store (a NUL character, a broken encoding) is the input's fault.
  '22021': {
    status: 400,
    detail: 'The request contains characters that cannot be stored.',
    code: 'invalid_characters',
  },
  '22P05': {
    status: 400,
    detail: 'The request contains characters that cannot be stored.',
    code: 'invalid_characters',
  },
};

/**
 * One error handler: ApiError bodies as they are, framework client errors as clear
 * 4xx answers in the same shape, and every other failure as a generic 500 whose
 * detail goes only to the log.
 */
export default fp(async function errors(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.statusCode).headers(error.headers).send(error.body);
    }
    const known = error.code ? clientErrors[error.code] : undefined;
    if (known) return reply.code(known.status).send({ detail: known.detail, code: known.code });
    if (error.statusCode === 429) {
      const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
      if (retryAfter && !reply.hasHeader('retry-after')) reply.header('retry-after', String(retryAfter));
      return reply.code(429).send({ detail: error.message, code: 'throttled', retry_after: retryAfter ?? null });
    }
    if (error.validation) {
      return reply.code(400).send({ detail: error.message, code: 'invalid' });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ detail: 'Bad request.', code: 'bad_request' });
    }
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return reply.code(503).header('retry-after', '5').send({
        detail: 'The service is briefly unavailable. Please try again in a few seconds.',
        code: 'unavailable',
      });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ detail: 'Server error. Please try again later.', code: 'server_error' });
  });
});
