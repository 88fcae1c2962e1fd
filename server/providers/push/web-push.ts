import { Agent } from 'node:https';
import webpush from 'web-push';
import type { Config } from '../../config.js';
import { keptSecret } from '../../lib/kept-secret.js';
import { publicLookup } from '../../lib/outbound.js';
import type { DevOutbox } from '../outbox.js';
import type { PushPort } from './port.js';

/** How long a push service may take to answer (ms): a reminder that cannot go fast goes by e-mail anyway. */
const TIMEOUT_MS = 5_000;
/** How long the push service keeps a notification for a phone that is off (s). */
const TTL_SECONDS = 3_600;

/**
 * The VAPID keys: from VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, else generated once and kept
 * in DATA_DIR (owner only), so subscriptions keep working across restarts.
 */
export function vapidKeys(config: Config): { publicKey: string; privateKey: string } {
  if (config.VAPID_PUBLIC_KEY && config.VAPID_PRIVATE_KEY) {
    return { publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY };
  }
  return keptSecret(config.DATA_DIR, 'vapid.json', {
    read: (text) => {
      const stored = JSON.parse(text) as { publicKey?: unknown; privateKey?: unknown };
      return typeof stored.publicKey === 'string' && typeof stored.privateKey === 'string'
        ? { publicKey: stored.publicKey, privateKey: stored.privateKey }
        : null;
    },
    make: () => webpush.generateVAPIDKeys(),
    write: (keys) => JSON.stringify(keys),
  });
}

/**
 * Web Push through the `web-push` library (VAPID, aes128gcm). Endpoints come from link
 * holders: the connection is refused when the name resolves to a private address (unless
 * PUSH_ALLOW_PRIVATE, for tests, which also takes a push service's own certificate), with a
 * short timeout and no redirects. Every push is also
 * captured in the dev outbox when one is given.
 */
export function createWebPush(config: Config, outbox: DevOutbox | null, now: () => number): PushPort {
  const { publicKey, privateKey } = vapidKeys(config);
  // Push services want an https: or mailto: contact: the site when it is https, else the sender address.
  const mailbox = /<([^>]+)>/.exec(config.MAIL_FROM)?.[1] ?? config.MAIL_FROM;
  const subject = config.VAPID_SUBJECT || (config.APP_URL.startsWith('https:') ? config.APP_URL : `mailto:${mailbox}`);
  const allowPrivate = config.PUSH_ALLOW_PRIVATE;
  // With PUSH_ALLOW_PRIVATE (tests), a push service on loopback with its own certificate.
  const agent = new Agent(allowPrivate ? { rejectUnauthorized: false } : { lookup: publicLookup });
  return {
    publicKey,
    async send(target, message) {
      outbox?.addPush({
        endpoint: target.endpoint,
        title: message.title,
        body: message.body,
        sent_at: new Date(now()).toISOString(),
      });
      try {
        await webpush.sendNotification(target, JSON.stringify(message), {
          vapidDetails: { subject, publicKey, privateKey },
          TTL: TTL_SECONDS,
          timeout: TIMEOUT_MS,
          urgency: 'high',
          agent,
        });
        return 'sent';
      } catch (error) {
        const status = (error as { statusCode?: number }).statusCode;
        if (status === 404 || status === 410) return 'gone';
        throw error;
      }
    },
  };
}
