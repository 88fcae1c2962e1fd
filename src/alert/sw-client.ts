import { Workbox } from 'workbox-window';

type Listener = () => void;
let workbox: Workbox | undefined;
let updateWaiting = false;
let reloadAsked = false;
const updateListeners = new Set<Listener>();

/**
 * Registers the service worker with workbox-window directly (not vite-plugin-pwa's helper,
 * which reloads every window on an update): a new version waits, and this page reloads only
 * when the person asks, which the page offers only when no countdown or send is under way.
 */
export function startServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  workbox = new Workbox(`${import.meta.env.BASE_URL}sw.js`, { scope: import.meta.env.BASE_URL });
  const ready = () => {
    updateWaiting = true;
    for (const listener of updateListeners) listener();
  };
  workbox.addEventListener('waiting', ready);
  // Another tab activated the new version: offer the reload here too, never force it.
  workbox.addEventListener('controlling', (event) => {
    if (reloadAsked) window.location.reload();
    else if (event.isUpdate) ready();
  });
  void workbox.register().catch(() => undefined);
}

/** Calls `listener` when a new version is ready. */
export function onUpdateReady(listener: Listener): () => void {
  updateListeners.add(listener);
  if (updateWaiting) listener();
  return () => updateListeners.delete(listener);
}
export const hasUpdate = () => updateWaiting;
/** Activates the waiting version (the page reloads once it controls), or just reloads if it already does. */
export async function applyUpdate(): Promise<void> {
  reloadAsked = true;
  const registration = await navigator.serviceWorker.getRegistration();
  if (registration?.waiting) workbox?.messageSkipWaiting();
  else window.location.reload();
}

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
