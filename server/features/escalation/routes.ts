import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { voiceApi } from '../../../common/api/escalation.js';
import { served } from '../../../common/api/shared.js';
import { notFound } from '../../lib/errors.js';
import { providerCallback } from '../../lib/provider-callback.js';
import { pressKeys, reportCall } from './calls.js';

/**
 * `POST /api/voice/gather/` and `/api/voice/status/`: the voice provider's callbacks on the
 * escalation calls, answered only when its adapter takes callbacks (Twilio). The adapter checks
 * the signature against the URL the provider was given (APP_URL + path and query) and the form
 * fields as sent, before the form is validated or read.
 */
export default async function voiceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const callbacks = app.voice.callbacks;
  // Form bodies only inside this plugin: the rest of the API stays JSON.
  await app.register(formbody);
  const signed = providerCallback(app, callbacks);

  app.route({
    ...served(voiceApi.gather),
    ...signed,
    handler: async (request, reply) => {
      const pressed = await pressKeys(app, request.query.c ?? '', request.body.Digits ?? '');
      if (!pressed || !callbacks) throw notFound();
      return reply.type('text/xml').send(callbacks.reply(pressed.say, pressed.language));
    },
  });

  app.route({
    ...served(voiceApi.status),
    ...signed,
    handler: async (request, reply) => {
      const report = callbacks?.status(request.body);
      if (report) await reportCall(app, request.query.c ?? '', report);
      return reply.code(204).send();
    },
  });
}
