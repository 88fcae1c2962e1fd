/** The health check: whether the server and its database answer. */
import { z } from 'zod';
import { healthRoutes } from './routes.js';
import { type Contract, errorResponses } from './shared.js';

export const health = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    db: z.enum(['ok', 'unreachable']),
    version: z.string(),
  })
  .meta({ id: 'Health' });

export const healthApi = {
  get: {
    ...healthRoutes.get,
    tags: ['health'],
    description: 'Whether the server and its database answer, and the running version.',
    response: { 200: health, ...errorResponses(503) },
  },
} as const satisfies Contract<typeof healthRoutes>;
