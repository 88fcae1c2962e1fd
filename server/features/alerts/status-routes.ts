import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import twilio from 'twilio';
import { alertsApi } from '../../../common/api/alerts.js';
import { served } from '../../../common/api/shared.js';
import { detailError, notFound } from '../../lib/errors.js';
import type { ProviderStatus } from '../../providers/sms/port.js';
import { applyProviderStatus } from './deliveries.js';

/** Twilio's MessageStatus values that change a delivery; the others (queued, accepted, sending…) do not. */
const STATUSES: Record<string, ProviderStatus> = {
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
};

/**
 * `POST /api/sms/status/`: Twilio's status callback, answered only when Twilio is configured
 * (`authToken`). The X-Twilio-Signature is checked against the URL Twilio was given (APP_URL
 * + path and query) and the form fields as sent, before the form is validated or read.
 */
export default async function smsStatusRoutes(fastify: FastifyInstance, options: { authToken?: string }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { authToken } = options;
  // Form bodies only inside this plugin: the rest of the API stays JSON.
  await app.register(formbody);

  app.route({
    ...served(alertsApi.smsStatus),
    onRequest: async () => {
      if (!authToken) throw notFound();
    },
    preValidation: async (request) => {
      const signature = request.headers['x-twilio-signature'];
      const url = `${app.config.APP_URL}${request.url}`;
      const form = (request.body ?? {}) as Record<string, string>;
      if (!authToken || typeof signature !== 'string' || !twilio.validateRequest(authToken, signature, url, form)) {
        throw detailError(403, 'Invalid Twilio signature.', 'invalid_signature');
      }
    },
    handler: async (request, reply) => {
      const form = request.body;
      const status = STATUSES[form.MessageStatus ?? ''];
      if (status) {
        const deliveryId = request.query.d;
        await applyProviderStatus(app.db, {
          ...(deliveryId ? { deliveryId } : {}),
          ...(form.MessageSid ? { providerMessageId: form.MessageSid } : {}),
          status,
          ...(form.ErrorCode ? { reason: `Twilio error ${form.ErrorCode}` } : {}),
          now: app.clock.now(),
        });
      }
      return reply.code(204).send();
    },
  });
}
