import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Redis } from 'ioredis';
import { healthApi } from '../../../common/api/health.js';
import { served } from '../../../common/api/shared.js';
import { pingDatabase } from '../../db/index.js';
import { REDIS_CLIENT_OPTIONS } from '../../plugins/rate-limit-store.js';

/**
 * `GET /api/health` (liveness): 200 with the database reachable; 503 when it is not, as an error
 * (with its code) that still says `status`, `db` and `version` for monitors.
 * `GET /api/ready` (readiness): 200 while the database and, with REDIS_URL, Redis answer, so a
 * load balancer sends this process traffic; 503 naming which one does not.
 */
export default async function healthRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.route({
    ...served(healthApi.get),
    handler: async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      const version = app.appVersion;
      if (await pingDatabase(app.db)) return reply.code(200).send({ status: 'ok', db: 'ok', version });
      return reply.code(503).send({
        detail: 'The database cannot be reached.',
        code: 'unavailable',
        status: 'unavailable',
        db: 'unreachable',
        version,
      });
    },
  });

  // A connection of its own, opened at start: a probe never waits for one (a command fails at
  // once while Redis is down, and after 100 ms without an answer).
  const redis = app.config.REDIS_URL ? new Redis(app.config.REDIS_URL, REDIS_CLIENT_OPTIONS) : undefined;
  if (redis) {
    redis.on('error', () => {});
    app.addHook('onClose', async () => void redis.disconnect());
  }
  const pingRedis = async () => {
    if (!redis) return 'off' as const;
    try {
      return (await redis.ping()) === 'PONG' ? ('ok' as const) : ('unreachable' as const);
    } catch {
      return 'unreachable' as const;
    }
  };
  app.route({
    ...served(healthApi.ready),
    handler: async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      const version = app.appVersion;
      const [db, redisState] = await Promise.all([pingDatabase(app.db), pingRedis()]);
      if (db && redisState !== 'unreachable') {
        return reply.code(200).send({ status: 'ready', db: 'ok', redis: redisState, version });
      }
      return reply.code(503).send({
        detail: db ? 'Redis cannot be reached.' : 'The database cannot be reached.',
        code: 'unavailable',
        status: 'unavailable',
        db: db ? 'ok' : 'unreachable',
        redis: redisState,
        version,
      });
    },
  });
}
