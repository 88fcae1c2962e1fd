/// <reference lib="WebWorker" />
import type { WorkerMessage } from '../common/sw-messages';

declare const self: ServiceWorkerGlobalScope;

/** Posts a message to every open window of this origin, controlled or not. */
export async function broadcast(message: WorkerMessage): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const client of windows) client.postMessage(message);
}
