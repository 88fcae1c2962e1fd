import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { served } from '../../../common/api/shared.js';
import { smsRepliesApi } from '../../../common/api/sms-replies.js';
import { providerCallback } from '../../lib/provider-callback.js';
import { handleReply } from './replies.js';
import { releaseInbound, takeInbound } from './repository.js';

/**
 * `POST /api/sms/inbound/`: a contact's SMS to Alerta's number, as Twilio posts it. As for the
 * status callbacks, the adapter checks the signature against the URL Twilio was given (APP_URL +
 * path) and the form as sent, before anything is read; 404 when the adapter takes no callbacks
 * (the dev outbox has its own reply box, through the same `handleReply`). A replay of a signed
 * request (its MessageSid already taken) is answered as the first was and acted on no more; one
 * whose handling failed is given back, so Twilio's retry is acted on.
 */
export default async function smsInboundRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  await app.register(formbody);

  app.route({
    ...served(smsRepliesApi.inbound),
    ...providerCallback(app, app.sms.statusCallbacks),
    handler: async (request, reply) => {
      const { From, Body, MessageSid } = request.body;
      if (From && (!MessageSid || (await takeInbound(app.db, MessageSid, app.clock.now())))) {
        try {
          const outcome = await handleReply(app, From, Body ?? '');
          request.log.info({ outcome }, 'SMS reply');
        } catch (error) {
          if (MessageSid) await releaseInbound(app.db, MessageSid);
          throw error;
        }
      } else if (From) {
        request.log.info({ outcome: 'replayed' }, 'SMS reply');
      }
      return reply.type('text/xml').send('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
    },
  });
}
