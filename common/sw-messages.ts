/**
 * The messages between the service worker and the pages, one definition for both sides:
 * sw/ reads and sends them, src/alert/sw-client.ts sends and reads them (sw/README.md).
 */

/** Each message's `type`. */
export const SW_MESSAGE = {
  /** page → worker: activate the waiting version (workbox-window's `messageSkipWaiting` sends it). */
  skipWaiting: 'SKIP_WAITING',
  /** page → worker: send the queued alerts now; the reply, a `ReplayReply`, comes on the port given, if any. */
  replayAlerts: 'REPLAY_ALERTS',
  /**
   * page → worker: a press the page has not had answered yet (it waits for a GPS fix, or its
   * POST is on its way); sent again with `wait_ms` 0 when the network refused it: send or queue now.
   */
  alertPressed: 'ALERT_PRESSED',
  /** page → worker: the server answered the press with this key; the worker holds it no more. */
  alertSettled: 'ALERT_SETTLED',
  /** worker → every window: a queued alert reached the server. */
  alertReplayed: 'ALERT_REPLAYED',
  /** worker → the emergency page's window, already open when the daily reminder is tapped: bring "I'm OK today" into view. */
  showDaily: 'SHOW_DAILY',
} as const;

/** An alert pressed on a page that is still waiting for its GPS fix, or for the server's answer. */
export interface PressedAlert {
  /** Same-origin path of the alert POST. */
  url: string;
  key: string;
  /** The JSON body as it would go now: the freshest fix, or the reason there is none. */
  body: string;
  /** How long the worker waits for the page to send it (or say it was answered) before sending it itself (ms). */
  wait_ms: number;
  /** The owner's device key, sent as `X-Alerta-Device-Key` (the page reads it from localStorage; a worker cannot). */
  device_key?: string;
}

/** A queued alert the worker sent: the server's status and answer (the alert, or the error). */
export interface Replayed {
  key: string | null;
  status: number;
  body: unknown;
}

/** What a page sends the worker. */
export type PageMessage =
  | { type: typeof SW_MESSAGE.skipWaiting }
  | { type: typeof SW_MESSAGE.replayAlerts }
  | { type: typeof SW_MESSAGE.alertPressed; alert: PressedAlert }
  | { type: typeof SW_MESSAGE.alertSettled; key: string };

/** What the worker sends the pages. */
export type WorkerMessage =
  | ({ type: typeof SW_MESSAGE.alertReplayed } & Replayed)
  | { type: typeof SW_MESSAGE.showDaily };

/** The worker's answer to `replayAlerts` on the message's port: whether the queue is now empty. */
export interface ReplayReply {
  ok: boolean;
}

/** A page's message as the worker receives it: a known type; an `alertPressed` alert or `alertSettled` key still to be checked. */
export interface ReceivedPageMessage {
  type: PageMessage['type'];
  alert?: unknown;
  key?: unknown;
}

const PAGE_TYPES = new Set<unknown>([
  SW_MESSAGE.skipWaiting,
  SW_MESSAGE.replayAlerts,
  SW_MESSAGE.alertPressed,
  SW_MESSAGE.alertSettled,
]);

/** A page's message, or null when it is none of them (any page of the origin may post anything). */
export function pageMessageOf(data: unknown): ReceivedPageMessage | null {
  const message = data as Partial<ReceivedPageMessage> | null;
  return PAGE_TYPES.has(message?.type)
    ? { type: message?.type as PageMessage['type'], alert: message?.alert, key: message?.key }
    : null;
}

/** The worker's report of a replayed alert, or null for any other message. */
export function replayedOf(data: unknown): Replayed | null {
  const message = data as Partial<Extract<WorkerMessage, { type: typeof SW_MESSAGE.alertReplayed }>> | null;
  if (message?.type !== SW_MESSAGE.alertReplayed) return null;
  return { key: message.key ?? null, status: Number(message.status), body: message.body };
}
