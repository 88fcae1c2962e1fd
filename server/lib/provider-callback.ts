import type { FastifyInstance, FastifyRequest } from 'fastify';
import { detailError, notFound } from './errors.js';

/** A provider adapter's check of a callback's signature (Twilio's, for SMS and voice). */
export interface SignedCallbacks {
  verify(callback: { url: string; headers: Record<string, unknown>; form: Record<string, string> }): boolean;
}

/**
 * The hooks of a route a provider posts to (SMS status callbacks, inbound SMS, voice callbacks):
 * 404 when the adapter takes no callbacks (the dev outbox, the captured calls), and 403 unless the
 * provider's signature checks against the URL it was given (APP_URL + path and query) and the
 * form as sent, before the form is validated or read.
 */
export function providerCallback(app: FastifyInstance, callbacks: SignedCallbacks | undefined) {
  return {
    onRequest: async () => {
      if (!callbacks) throw notFound();
    },
    preValidation: async (request: FastifyRequest) => {
      const url = `${app.config.APP_URL}${request.url}`;
      const form = (request.body ?? {}) as Record<string, string>;
      if (!callbacks?.verify({ url, headers: request.headers, form })) {
        throw detailError(403, 'Invalid Twilio signature.', 'invalid_signature');
      }
    },
  };
}
