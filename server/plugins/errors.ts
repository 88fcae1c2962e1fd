import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import { isDatabaseUnavailable } from '../lib/db-errors.js';
import { ApiError, type ErrorCode } from '../lib/errors.js';

type ClientError = { status: number; detail: string; code: ErrorCode };

/** Framework error codes that are the client's fault, with the text we answer. */
const clientErrors: Record<string, ClientError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, detail: 'Malformed JSON body.', code: 'parse_error' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, detail: 'Request body is too large.', code: 'payload_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, detail: 'Unsupported media type.', code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, detail: 'Invalid Content-Length.', code: 'parse_error' },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, detail: 'Invalid Content-Type.', code: 'parse_error' },
  FST_ERR_BAD_URL: { status: 400, detail: 'Malformed URL: a percent-encoded part does not decode.', code: 'bad_url' },
  FST_ERR_MAX_PARAM_LENGTH: {
    status: 414,
    detail: 'A part of the URL is longer than any this API accepts.',
    code: 'uri_too_long',
  },
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

const BAD_REQUEST: ClientError = { status: 400, detail: 'Bad request.', code: 'bad_request' };

/**
 * Fastify's `frameworkErrors`: the router's own refusals (a path that does not decode, a
 * parameter past `maxParamLength`) never reach the error handler, and would otherwise answer
 * Fastify's shape, with the path (and any secret in it) echoed back.
 */
export const frameworkErrors: FastifyServerOptions['frameworkErrors'] = (error, _request, reply) => {
  const known = clientErrors[error.code] ?? BAD_REQUEST;
  (reply as FastifyReply)
    .code(known.status)
    .header('cache-control', 'no-store')
    .send({ detail: known.detail, code: known.code });
};

/** What Node's HTTP parser refuses before there is a request, by its error code. */
const connectionErrors: Record<string, ClientError> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, detail: 'The request took too long to arrive.', code: 'request_timeout' },
  HPE_HEADER_OVERFLOW: { status: 431, detail: 'The request headers are too large.', code: 'headers_too_large' },
};

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses (a broken request line or
 * header, a Content-Length that is no number, both Content-Length and chunked, headers too large,
 * too slow) answered in the API's shape, then the connection closed, as Fastify's own does.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = (error.code && connectionErrors[error.code]) || { ...BAD_REQUEST, detail: 'Malformed HTTP request.' };
  this.log.trace({ err: error }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({ detail: known.detail, code: known.code });
    socket.write(
      `HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

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
      return reply.code(error.statusCode).send({ detail: BAD_REQUEST.detail, code: BAD_REQUEST.code });
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
