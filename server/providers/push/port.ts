/** A browser's push subscription, as the Push API gives it. */
export interface PushTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** What a notification shows, and what the service worker needs to act on it. */
export interface PushMessage {
  title: string;
  body: string;
  /** For the notification's actions: what it is about and the page to open. */
  data: Record<string, string>;
}

/** Sends Web Push notifications; `gone` when the push service says the subscription no longer exists. */
export interface PushPort {
  readonly publicKey: string;
  send(target: PushTarget, message: PushMessage): Promise<'sent' | 'gone'>;
}
