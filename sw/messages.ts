/// <reference lib="WebWorker" />
import { pageMessageOf, type ReplayReply, SW_MESSAGE } from '../common/sw-messages';
import { replayAlerts } from './alert-queue';
import { holdPressed, pressedFrom, settlePressed } from './pressed';

declare const self: ServiceWorkerGlobalScope;

/**
 * Messages from pages (common/sw-messages.ts): `skipWaiting` from the update prompt,
 * `replayAlerts` when a page opens or sees the network return (iOS has no Background Sync; the
 * reply goes back on the message port), `alertPressed` when the emergency page holds a press
 * while it waits for a GPS fix or for its POST's answer, `alertSettled` once that answer came.
 */
export function setUpMessages(): void {
  self.addEventListener('message', (event) => {
    const message = pageMessageOf(event.data);
    switch (message?.type) {
      case SW_MESSAGE.skipWaiting:
        void self.skipWaiting();
        break;
      case SW_MESSAGE.replayAlerts: {
        const reply = (answer: ReplayReply) => event.ports[0]?.postMessage(answer);
        event.waitUntil(
          replayAlerts().then(
            () => reply({ ok: true }),
            () => reply({ ok: false }),
          ),
        );
        break;
      }
      case SW_MESSAGE.alertPressed: {
        const alert = pressedFrom(message.alert);
        if (alert) event.waitUntil(holdPressed(alert).catch(() => undefined));
        break;
      }
      case SW_MESSAGE.alertSettled:
        if (typeof message.key === 'string') settlePressed(message.key);
        break;
    }
  });
}
