/// <reference lib="WebWorker" />
import { Queue } from 'workbox-background-sync';
import { registerRoute } from 'workbox-routing';
import { patternOf } from '../common/api/paths';
import { ALERT_POST_PATH, alertsRoutes, checkinsRoutes, dailyRoutes, POSITION_POST_PATH } from '../common/api/routes';
import { PENDING_ALERT_MAX_AGE_MS } from '../common/constants';
import { SW_MESSAGE } from '../common/sw-messages';
import { broadcast } from './messages-out';

declare const self: ServiceWorkerGlobalScope;

/** A check-in's "I'm safe" (`…/checkins/{id}/done/`): pressed offline, it waits in the queue like an alert. */
export const CHECKIN_DONE_PATH = patternOf(checkinsRoutes.done);
/** The daily "I'm OK today" (`…/daily/ok/`): tapped offline, it waits here and is counted at the time it was tapped. */
export const DAILY_OK_PATH = patternOf(dailyRoutes.ok);

/** Queued alerts older than the page would still send are dropped (minutes). */
const RETENTION_MINUTES = PENDING_ALERT_MAX_AGE_MS / 60_000;

/**
 * After a replay the network refused, the waits before trying again (ms). `online` and a page
 * opening can come a moment before the connection carries anything (the phone has signal, the
 * route is not up yet): a single try then would leave the queue waiting for the next sign.
 */
export const REPLAY_RETRY_DELAYS_MS: readonly number[] = [1000, 3000];

let queue: Queue | undefined;
/** The replay pass under way, and the one asked for meanwhile, which starts when it ends. */
let running: Promise<void> | undefined;
let next: Promise<void> | undefined;
/** Keys of requests this worker has already handled (sent or queued): a held press is then moot. */
const handled = new Set<string>();

/** A replay stopped because the request did not reach the server at all (no network). */
class Unreachable extends Error {}

/**
 * The queue, created on first use. A browser without Background Sync (Safari, Firefox) calls
 * `onSync` from inside the Queue constructor, so the callback uses the queue it is handed and
 * nothing of this module that could still be uninitialised.
 */
function alertQueue(): Queue {
  queue ??= new Queue('alerts', { maxRetentionTime: RETENTION_MINUTES, onSync: (q) => replay(q.queue) });
  return queue;
}

/** Answers the page when its alert could not reach the server and now waits in the queue. */
const queuedResponse = () =>
  new Response(JSON.stringify({ detail: 'Queued until the network returns.', code: 'queued' }), {
    status: 202,
    headers: { 'content-type': 'application/json' },
  });

/**
 * Sends every queued alert, oldest first. Each one carries its Idempotency-Key, so a request
 * that reached the server before the connection dropped is never sent twice.
 */
async function replayPass(from: Queue): Promise<void> {
  for (let entry = await from.shiftRequest(); entry; entry = await from.shiftRequest()) {
    const key = entry.request.headers.get('idempotency-key');
    let response: Response;
    try {
      response = await fetch(entry.request.clone());
    } catch (error) {
      await from.unshiftRequest(entry);
      throw new Unreachable(`alert replay did not reach the server: ${error}`);
    }
    // Busy or rate limited: keep it for the next try rather than lose it.
    if (response.status >= 500 || response.status === 429) {
      await from.unshiftRequest(entry);
      throw new Error(`alert replay answered ${response.status}`);
    }
    const body: unknown = await response.json().catch(() => null);
    await broadcast({ type: SW_MESSAGE.alertReplayed, key, status: response.status, body });
  }
}

/**
 * One replay pass at a time: `sync`, start-up, a page opening and the page's `online` message
 * may all ask at once. A pass under way may have begun before the network returned, and fail;
 * whoever asks meanwhile (often because it returned) gets a pass that starts after it, shared
 * by everyone asking during the same pass.
 */
function replay(from: Queue): Promise<void> {
  if (!running) {
    running = replayPass(from).finally(() => {
      running = undefined;
    });
    return running;
  }
  next ??= running
    .catch(() => undefined)
    .then(() => {
      next = undefined;
      return replay(from);
    });
  return next;
}

/**
 * Sends every queued alert now (see `replay`); when the network refuses, tries again after each
 * of `retryDelaysMs`. Rejects when the network or the server is still down.
 */
export async function replayAlerts(retryDelaysMs: readonly number[] = REPLAY_RETRY_DELAYS_MS): Promise<void> {
  for (const delay of retryDelaysMs) {
    try {
      return await replay(alertQueue());
    } catch (error) {
      // A busy server is not asked again at once: its Retry-After is longer than these waits.
      if (!(error instanceof Unreachable)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  return replay(alertQueue());
}

/**
 * Sends an alert or position update, or queues it when the network or the server is down, or
 * (given `timeoutMs`) has not answered by then. The answer is the server's, or 202 `queued`.
 */
export async function sendOrQueue(request: Request, timeoutMs?: number): Promise<Response> {
  const key = request.headers.get('idempotency-key');
  if (key) handled.add(key);
  const copy = request.clone();
  try {
    const response = await fetch(
      request,
      timeoutMs === undefined ? undefined : { signal: AbortSignal.timeout(timeoutMs) },
    );
    // The server or a proxy in front of it is down: as good as no network. The key makes a
    // later replay safe even if this attempt did reach the database.
    if (response.status < 500) return response;
  } catch {
    // No network at all, or no answer in time.
  }
  // One entry per alert: a page retrying the same key while the network is down adds nothing.
  const queued = await alertQueue().getAll();
  if (!queued.some((entry) => entry.request.headers.get('idempotency-key') === key)) {
    await alertQueue().pushRequest({ request: copy });
  }
  return queuedResponse();
}

/** True once a request with this Idempotency-Key went through this worker. */
export const wasHandled = (key: string) => handled.has(key);

/** Static Routing's part of the install event (Chromium 123 on); not in TypeScript's lib yet. */
interface RoutingInstallEvent extends ExtendableEvent {
  addRoutes?: (rules: object) => Promise<void>;
}

/**
 * Where the browser has Static Routing (Chromium), the alert POST goes straight to the network:
 * no fetch event, no wait for this worker to wake (docs/PERFORMANCE.md). The
 * page gives the worker the press before it posts and again when the network refuses it
 * (pressed.ts), so it is still sent or queued here whatever becomes of the tab. Elsewhere
 * (Safari, Firefox) the route below sends or queues it. A browser that refuses the rule installs
 * the worker all the same.
 */
function routeAlertsPastWorker(): void {
  self.addEventListener('install', (event: RoutingInstallEvent) => {
    if (typeof event.addRoutes !== 'function') return;
    const rule = {
      condition: { urlPattern: { pathname: alertsRoutes.send.url }, requestMethod: alertsRoutes.send.method },
      source: 'network',
    };
    try {
      event.waitUntil(event.addRoutes(rule).catch(() => undefined));
    } catch {
      // An older rule syntax: the fetch handler below carries the alert.
    }
  });
}

/**
 * Alert POSTs, live position updates and check-ins' "I'm safe" (each with its own key) go to
 * the network; when that fails (or the server is down) they are queued and the page is told
 * 202 `queued`.
 */
export function setUpAlertQueue(): void {
  routeAlertsPastWorker();
  registerRoute(
    ({ url }) =>
      url.origin === self.location.origin &&
      [ALERT_POST_PATH, POSITION_POST_PATH, CHECKIN_DONE_PATH, DAILY_OK_PATH].some((path) => path.test(url.pathname)),
    ({ request }) => sendOrQueue(request),
    'POST',
  );
  // Creating the queue replays it at once where there is no Background Sync (iOS, Firefox);
  // elsewhere this is the start-up try.
  replayAlerts().catch(() => undefined);
  // Any page of the app opening is a sign the network may be back: send the queue now rather
  // than wait for the browser's background-sync back-off.
  self.addEventListener('fetch', (event) => {
    if (event.request.mode === 'navigate') event.waitUntil(replayAlerts().catch(() => undefined));
  });
}
