import type { PushPayload } from '../../../common/push.js';

/** A browser's push subscription, as the Push API gives it. */
export interface PushTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** What a notification shows, and what the service worker needs to act on it (common/push.ts). */
export type PushMessage = PushPayload;

/** Sends Web Push notifications; `gone` when the push service says the subscription no longer exists. */
export interface PushPort {
  readonly publicKey: string;
  send(target: PushTarget, message: PushMessage): Promise<'sent' | 'gone'>;
}
