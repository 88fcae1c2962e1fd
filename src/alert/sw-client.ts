/// <reference types="vite-plugin-pwa/vanillajs" />
import { registerSW } from 'virtual:pwa-register';

type Listener = () => void;
let updateReady: (() => Promise<void>) | undefined;
const updateListeners = new Set<Listener>();

/** Registers the service worker; an update waits until the page says it is idle (see `applyUpdate`). */
export function startServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  const update = registerSW({
    immediate: true,
    onNeedRefresh() {
      updateReady = () => update(true);
      for (const listener of updateListeners) listener();
    },
  });
}

/** Whether a new version waits, and a way to hear when one does. */
export function onUpdateReady(listener: Listener): () => void {
  updateListeners.add(listener);
  if (updateReady) listener();
  return () => updateListeners.delete(listener);
}
export const hasUpdate = () => updateReady !== undefined;
/** Activates the waiting version and reloads. */
export const applyUpdate = () => updateReady?.();

/** Asks the service worker to send its queued alerts now; resolves when it is done or after `timeoutMs`. */
export async function replayQueued(timeoutMs = 8000): Promise<void> {
  const worker = navigator.serviceWorker?.controller;
  if (!worker) return;
  await new Promise<void>((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(resolve, timeoutMs);
    channel.port1.onmessage = () => {
      clearTimeout(timer);
      resolve();
    };
    worker.postMessage({ type: 'REPLAY_ALERTS' }, [channel.port2]);
  });
}

export interface Replayed {
  key: string | null;
  status: number;
  body: unknown;
}

/** Hears the service worker report a queued alert it sent on its own (on `sync` or at start). */
export function onReplayed(listener: (message: Replayed) => void): () => void {
  const container = navigator.serviceWorker;
  if (!container) return () => undefined;
  const handler = (event: MessageEvent) => {
    const data = event.data as (Replayed & { type?: string }) | null;
    if (data?.type === 'ALERT_REPLAYED') listener(data);
  };
  container.addEventListener('message', handler);
  return () => container.removeEventListener('message', handler);
}

/** True once a service worker controls this page and the emergency page is in its precache. */
export async function offlineReady(): Promise<boolean> {
  if (!navigator.serviceWorker?.controller || !('caches' in window)) return false;
  for (const name of await caches.keys()) {
    if (!name.includes('precache')) continue;
    const cache = await caches.open(name);
    if ((await cache.keys()).some((request) => new URL(request.url).pathname === '/alert.html')) return true;
  }
  return false;
}
