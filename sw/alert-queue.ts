/// <reference lib="WebWorker" />
import { Queue } from 'workbox-background-sync';
import { registerRoute } from 'workbox-routing';
import { PENDING_ALERT_MAX_AGE_MS } from '../common/constants';
import { broadcast } from './messages-out';

/** The alert POST: `/api/emergency/public/{token}/alerts/`. */
const ALERT_POST = /^\/api\/emergency\/public\/[^/]+\/alerts\/$/;
/** A live position update after an alert (`…/alerts/{id}/location/`): queued the same way, each with its own key. */
const LOCATION_POST = /^\/api\/emergency\/public\/[^/]+\/alerts\/[^/]+\/location\/$/;
/** Queued alerts older than the page would still send are dropped (minutes). */
const RETENTION_MINUTES = PENDING_ALERT_MAX_AGE_MS / 60_000;

const queue = new Queue('alerts', { maxRetentionTime: RETENTION_MINUTES, onSync: () => replayAlerts() });
let replaying: Promise<void> | undefined;

/** Answers the page when its alert could not reach the server and now waits in the queue. */
const queuedResponse = () =>
  new Response(JSON.stringify({ detail: 'Queued until the network returns.', code: 'queued' }), {
    status: 202,
    headers: { 'content-type': 'application/json' },
  });

/**
 * Sends every queued alert, oldest first. Each one carries its Idempotency-Key, so a request
 * that reached the server before the connection dropped is never sent twice. One replay at a
 * time: `sync`, start-up and the page's `online` message may all ask at once.
 */
export function replayAlerts(): Promise<void> {
  replaying ??= (async () => {
    try {
      for (let entry = await queue.shiftRequest(); entry; entry = await queue.shiftRequest()) {
        const key = entry.request.headers.get('idempotency-key');
        let response: Response;
        try {
          response = await fetch(entry.request.clone());
        } catch (error) {
          await queue.unshiftRequest(entry);
          throw error;
        }
        // Busy or rate limited: keep it for the next try rather than lose it.
        if (response.status >= 500 || response.status === 429) {
          await queue.unshiftRequest(entry);
          throw new Error(`alert replay answered ${response.status}`);
        }
        const body: unknown = await response.json().catch(() => null);
        await broadcast({ type: 'ALERT_REPLAYED', key, status: response.status, body });
      }
    } finally {
      replaying = undefined;
    }
  })();
  return replaying;
}

/** Alert POSTs go to the network; when that fails (or the server is down) they are queued and the page is told 202 `queued`. */
export function setUpAlertQueue(): void {
  registerRoute(
    ({ url }) =>
      url.origin === self.location.origin && (ALERT_POST.test(url.pathname) || LOCATION_POST.test(url.pathname)),
    async ({ request }) => {
      const copy = request.clone();
      try {
        const response = await fetch(request);
        // The server or a proxy in front of it is down: as good as no network. The key makes a
        // later replay safe even if this attempt did reach the database.
        if (response.status < 500) return response;
      } catch {
        // No network at all.
      }
      // One entry per alert: a page retrying the same key while the network is down adds nothing.
      const key = copy.headers.get('idempotency-key');
      const queued = await queue.getAll();
      if (!queued.some((entry) => entry.request.headers.get('idempotency-key') === key)) {
        await queue.pushRequest({ request: copy });
      }
      return queuedResponse();
    },
    'POST',
  );
  // Browsers without Background Sync (iOS) get no `sync` event: try whenever the worker starts.
  replayAlerts().catch(() => undefined);
}
