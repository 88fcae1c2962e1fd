import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { devicesApi } from '../../../common/api/devices.js';
import { served } from '../../../common/api/shared.js';
import { notFound } from '../../lib/errors.js';
import { listDeviceKeys, removeDeviceKey } from './device-keys.js';
import { logoutEverywhere } from './sessions.js';

/**
 * The owner's devices (`/api/users/me/devices/`): the device keys their logins issued, each
 * removable, and "log out everywhere", which ends every login and every key.
 */
export default async function deviceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.route({
    ...served(devicesApi.list),
    onRequest: app.authenticate,
    handler: async (request) => listDeviceKeys(app.db, request.user.id, request.sessionId),
  });
  app.route({
    ...served(devicesApi.remove),
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      if (!(await removeDeviceKey(app.db, request.user.id, request.params.id))) throw notFound();
      return reply.code(204).send();
    },
  });
  app.route({
    ...served(devicesApi.logoutEverywhere),
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      await logoutEverywhere(app, request.user.id);
      return reply.code(204).send();
    },
  });
}
