import { isIP } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { type Config, LOOPBACK_HOST } from '../../config.js';
import type { DevOutbox } from '../../providers/outbox.js';

/** Listening on every address of this machine: its loopback reaches the server. */
const WILDCARD = new Set(['0.0.0.0', '::']);
/** Loopback names and addresses that `localhost` also reaches. */
const PLAIN_LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/** The address the server listens on, an IPv6 one without its brackets. */
const listeningHost = (config: Config) => config.HOST.replace(/^\[(.*)\]$/, '$1');

/**
 * Why no one can open the outbox pages of a server with this configuration, or null when this
 * machine can. They answer a loopback peer (any peer with DEV_OUTBOX_PUBLIC) and never what may
 * have come through a proxy (outbox-routes.ts): behind TRUST_PROXY not even this machine.
 */
export function outboxUnreachable(config: Config): string | null {
  if (config.TRUST_PROXY !== false) {
    return 'TRUST_PROXY is set, and the dev pages answer nothing that may come through a proxy, not even this machine';
  }
  const host = listeningHost(config);
  if (WILDCARD.has(host) || LOOPBACK_HOST.test(host) || config.DEV_OUTBOX_PUBLIC) return null;
  return `HOST=${config.HOST} takes no connection from this machine's loopback, the only peer the dev pages answer (DEV_OUTBOX_PUBLIC=1 opens them to others)`;
}

/** Where the outbox opens, with its key (printed at start), or why nowhere does. */
export function outboxAddress(config: Config, port: number): { url: string } | { unreachable: string } {
  const unreachable = outboxUnreachable(config);
  if (unreachable) return { unreachable };
  const listening = listeningHost(config);
  // Not APP_URL: that may name a proxy, which the outbox never answers through.
  const host = WILDCARD.has(listening) || PLAIN_LOOPBACK.has(listening.toLowerCase()) ? 'localhost' : listening;
  const origin = `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  return { url: `${origin}/dev/outbox?key=${encodeURIComponent(config.DEV_OUTBOX_KEY)}` };
}

/**
 * Where no address opens the outbox, what it captures goes to the log instead: the e-mails
 * (verification and reset links) and the SMS, so an operator trying a proxied setup before
 * configuring SMTP and Twilio can still finish a sign-up.
 */
export function logCapturedWhereUnreachable(app: {
  config: Config;
  outbox: Pick<DevOutbox, 'onCapture'>;
  log: Pick<FastifyBaseLogger, 'info'>;
}): void {
  if (!outboxUnreachable(app.config)) return;
  app.outbox.onCapture = (message) => app.log.info({ outbox: message }, 'dev outbox: captured');
}
