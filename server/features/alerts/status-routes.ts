import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import twilio from 'twilio';
import { detailError } from '../../lib/errors.js';
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
 * `POST /api/sms/status/`: Twilio's status callback. The X-Twilio-Signature is checked
 * against the URL Twilio was given (APP_URL + path and query) and the form fields.
 */
export default async function smsStatusRoutes(app: FastifyInstance, options: { authToken: string }) {
  // Form bodies only inside this plugin: the rest of the API stays JSON.
  await app.register(formbody);

  app.post('/api/sms/status/', async (request, reply) => {
    const params = (request.body ?? {}) as Record<string, string>;
    const signature = request.headers['x-twilio-signature'];
    const url = `${app.config.APP_URL}${request.url}`;
    if (typeof signature !== 'string' || !twilio.validateRequest(options.authToken, signature, url, params)) {
      throw detailError(403, 'Invalid Twilio signature.', 'invalid_signature');
    }
    const status = STATUSES[String(params.MessageStatus ?? '')];
    if (status) {
      const deliveryId = (request.query as { d?: unknown }).d;
      const reason = params.ErrorCode ? `Twilio error ${params.ErrorCode}` : undefined;
      await applyProviderStatus(app.db, {
        ...(typeof deliveryId === 'string' && deliveryId ? { deliveryId } : {}),
        ...(params.MessageSid ? { providerMessageId: params.MessageSid } : {}),
        status,
        ...(reason ? { reason } : {}),
        now: app.clock.now(),
      });
    }
    return reply.code(204).send();
  });
}
