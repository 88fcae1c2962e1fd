/// <reference lib="WebWorker" />
import { replayAlerts } from './alert-queue';
import { holdPressed, pressedFrom } from './pressed';

declare const self: ServiceWorkerGlobalScope;

/**
 * Messages from pages: `SKIP_WAITING` from the update prompt, `REPLAY_ALERTS` when a page opens
 * or sees the network return (iOS has no Background Sync; the reply goes back on the message
 * port), `ALERT_PRESSED` when the emergency page holds a press while it waits for a GPS fix.
 */
export function setUpMessages(): void {
  self.addEventListener('message', (event) => {
    const data = event.data as { type?: string; alert?: unknown } | null;
    const type = data?.type;
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
    if (type === 'ALERT_PRESSED') {
      const alert = pressedFrom(data?.alert);
      if (alert) event.waitUntil(holdPressed(alert).catch(() => undefined));
    }
  });
}
