/** The health check: whether the server and its database answer. */
import { z } from 'zod';
import { healthRoutes } from './routes.js';
import { type Contract, errorResponses, operation, SECURITY } from './shared.js';

export const health = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    db: z.enum(['ok', 'unreachable']),
    version: z.string(),
  })
  .meta({ id: 'Health' });

export const readiness = z
  .object({
    status: z.literal('ready'),
    db: z.literal('ok'),
    redis: z.enum(['ok', 'off']).describe('`off` when the server runs without REDIS_URL.'),
    version: z.string(),
  })
  .meta({ id: 'Readiness' });

export const healthApi = {
  get: {
    ...healthRoutes.get,
    ...operation('getHealth', 'Check that the server and its database answer', SECURITY.none),
    tags: ['health'],
    description: 'Whether the server and its database answer, and the running version.',
    response: { 200: health, ...errorResponses(503) },
  },
  ready: {
    ...healthRoutes.ready,
    ...operation('getReadiness', 'Check whether this process should be sent traffic', SECURITY.none),
    tags: ['health'],
    description:
      'Whether this process should be sent traffic: its database and, with REDIS_URL, Redis answer. 503 (with `db` and `redis` saying which failed) while either does not; `/api/health` says only whether the process itself lives.',
    response: { 200: readiness, ...errorResponses(503) },
  },
} as const satisfies Contract<typeof healthRoutes>;
