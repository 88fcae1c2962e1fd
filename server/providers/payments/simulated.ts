import { randomToken } from '../../lib/ids.js';
import { HOUR } from '../../lib/time.js';
import { type PaymentsPort, WebhookError } from './port.js';

/** How long a simulated portal link stays valid, like a provider's short-lived portal session. */
const PORTAL_SESSION_MS = HOUR;

export interface SimulatedPayments extends PaymentsPort {
  readonly name: 'simulated';
  /** The user a live portal session belongs to, or undefined when unknown or expired. */
  portalUser(session: string): string | undefined;
}

/**
 * The embedded default: checkout and portal are pages of this server (`/dev/checkout`,
 * `/dev/portal`); paying there activates the plan as a provider webhook would, and the
 * usage rows are the SMS billing record.
 */
export function createSimulatedPayments(now: () => number): SimulatedPayments {
  const portals = new Map<string, { userId: string; expiresAt: number }>();
  return {
    name: 'simulated',
    async createCheckout(input) {
      return { url: `/dev/checkout/${input.checkoutId}`, providerSessionId: null };
    },
    async createPortal({ userId }) {
      for (const [key, value] of portals) if (value.expiresAt <= now()) portals.delete(key);
      const session = randomToken(18);
      portals.set(session, { userId, expiresAt: now() + PORTAL_SESSION_MS });
      return { url: `/dev/portal?session=${session}` };
    },
    portalUser(session) {
      const entry = portals.get(session);
      return entry && entry.expiresAt > now() ? entry.userId : undefined;
    },
    async cancelNow() {},
    // The simulated provider keeps no state of its own: the subscription row is the whole change.
    async changePlan() {},
    async reportUsage() {
      return false;
    },
    verifyWebhook() {
      throw new WebhookError('Payment webhooks are not configured: payments are simulated.');
    },
  };
}
