import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HOUR, MINUTE, SECOND } from '../../lib/time.js';
import { Counter } from '../../plugins/security.js';

/** The login identifier and the e-mail address as their schemas folded them. */
const identifierOf = (request: FastifyRequest) => (request.body as { username: string }).username;
const addressOf = (request: FastifyRequest) => (request.body as { email: string }).email;

/** The account-level limits, counted by what was typed (never by account, so they tell nothing of who exists). */
export function createThrottles(app: FastifyInstance) {
  return {
    /** 5 failed logins in 15 minutes per (identifier, client address): one address never locks the owner out elsewhere. */
    loginFailures: new Counter(app, 'login-failures', 5, 15 * MINUTE, (r) => `${identifierOf(r)}|${r.ip}`),
    /** 20 failed logins in an hour per identifier from all addresses together turn on the slow back-off… */
    loginFailuresAnywhere: new Counter(app, 'login-failures-anywhere', 20, HOUR, identifierOf),
    /** …one try per identifier every 30 seconds, from anywhere, while it lasts. */
    loginBackoff: new Counter(app, 'login-backoff', 1, 30 * SECOND, identifierOf),
    /** 5 reset requests an hour per address. */
    resetByAddress: new Counter(app, 'reset', 5, HOUR, addressOf),
    /** 5 verification resends an hour per address. */
    resendByAddress: new Counter(app, 'resend', 5, HOUR, addressOf),
  };
}
export type Throttles = ReturnType<typeof createThrottles>;
