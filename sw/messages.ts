/// <reference lib="WebWorker" />
import { replayAlerts } from './alert-queue';

declare const self: ServiceWorkerGlobalScope;

/**
 * Messages from pages: `SKIP_WAITING` from the update prompt, `REPLAY_ALERTS` when a page sees
 * the network return (iOS has no Background Sync); the reply goes back on the message port.
 */
export function setUpMessages(): void {
  self.addEventListener('message', (event) => {
    const type = (event.data as { type?: string } | null)?.type;
    if (type === 'SKIP_WAITING') void self.skipWaiting();
    if (type === 'REPLAY_ALERTS') {
      const port = event.ports[0];
      event.waitUntil(
        replayAlerts().then(
          () => port?.postMessage({ ok: true }),
          () => port?.postMessage({ ok: false }),
        ),
      );
    }
  });
}
