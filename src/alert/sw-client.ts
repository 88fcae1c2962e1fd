import type { Workbox } from 'workbox-window';
import { WORKER_READY_WAIT_MS } from '../../common/constants';
import { type PageMessage, type Replayed, replayedOf, SW_MESSAGE } from '../../common/sw-messages';
import type { AlertBody } from './storage';

type Listener = () => void;
let workbox: Workbox | undefined;
let updateWaiting = false;
let reloadAsked = false;
/** False once the worker could not be registered or started: the page still sends online, but not offline. */
let workerFailed = typeof navigator === 'undefined' || !('serviceWorker' in navigator);
const updateListeners = new Set<Listener>();
const failureListeners = new Set<(unavailable: boolean) => void>();

/**
 * Registers the service worker with workbox-window directly (not vite-plugin-pwa's helper,
 * which reloads every window on an update): a new version waits, and this page reloads only
 * when the person asks, which the page offers only when no countdown or send is under way.
 */
export function startServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  // workbox-window loads beside the page's first draw, which does not wait for it. Not loaded
  // (no network and no worker to answer), the page is not kept offline unless a worker runs it.
  void import('workbox-window').then(
    ({ Workbox }) => registerWith(new Workbox(`${import.meta.env.BASE_URL}sw.js`, { scope: import.meta.env.BASE_URL })),
    () => {
      if (!navigator.serviceWorker.controller) setFailed(true);
    },
  );
  // A registration that neither succeeds nor fails (seen in Chromium under load, and in WebKit,
  // with a worker that throws) may leave no worker, or one installing for ever, and WebKit has
  // been seen not to answer getRegistration() then: whatever is short of a worker that can run
  // (active, or waiting for this page to let go) after this long counts as not available
  // offline. A slow first install that does end takes the note back ('activated' below).
  setTimeout(() => {
    void withinMs(navigator.serviceWorker.getRegistration(), REGISTRATION_ANSWER_MS).then((registration) => {
      if (!navigator.serviceWorker.controller && !registration?.active && !registration?.waiting) setFailed(true);
    });
  }, WORKER_READY_WAIT_MS);
}

/** Follows the worker's life through `started` and registers it. */
function registerWith(started: Workbox): void {
  workbox = started;
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
  workbox.addEventListener('redundant', () => {
    if (!navigator.serviceWorker.controller) setFailed(true);
  });
  // A worker that was still installing when the page said so after all starts: say it no more.
  workbox.addEventListener('activated', () => setFailed(false));
  void workbox.register().then(
    // A queue left by a closed tab goes now that a page of the app is open.
    () => requestReplay(),
    // A worker that cannot start must never stop the page: it says it is not available offline.
    () => setFailed(true),
  );
}

/** How long getRegistration() may take to answer before the page stops waiting for it (ms). */
const REGISTRATION_ANSWER_MS = 2_000;

/** `promise`'s value, or undefined if it has not settled (or failed) within `ms`. */
function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => resolve(undefined),
    );
  });
}

function setFailed(value: boolean): void {
  if (workerFailed === value) return;
  workerFailed = value;
  for (const listener of failureListeners) listener(value);
}

/** True when this browser will not keep the page offline (no service worker, or it failed). */
export const offlineUnavailable = () => workerFailed;
/**
 * Calls `listener` with true when the service worker turns out not to work here, with false if it
 * starts after all; at once with true when it already has failed. A part of the page reads
 * `offlineUnavailable()` as it is drawn and listens a moment later (after the paint): a failure
 * in between was missed, and in a hidden tab (WebKit's timers and frames wait there) the
 * registration's refusal came in that moment, so the note never showed.
 */
export function onOfflineUnavailable(listener: (unavailable: boolean) => void): () => void {
  failureListeners.add(listener);
  if (workerFailed) listener(true);
  return () => failureListeners.delete(listener);
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

/** Asks the active service worker, controlling this page or not, to send its queued alerts; no reply awaited. */
export function requestReplay(): void {
  void navigator.serviceWorker?.ready.then((registration) =>
    registration.active?.postMessage({ type: SW_MESSAGE.replayAlerts } satisfies PageMessage),
  );
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
    worker.postMessage({ type: SW_MESSAGE.replayAlerts } satisfies PageMessage, [channel.port2]);
  });
}

/**
 * Hands a press to the service worker while this page waits for a GPS fix or for its POST's
 * answer: if the tab is closed first, the worker sends `body` itself after `waitMs` (0: now, or
 * queued), with the owner's device key when there is one (a worker cannot read localStorage).
 * False when no worker controls this page.
 */
export function holdPress(
  url: string,
  key: string,
  body: AlertBody,
  waitMs: number,
  deviceKey?: string | null,
): boolean {
  const worker = navigator.serviceWorker?.controller;
  worker?.postMessage({
    type: SW_MESSAGE.alertPressed,
    alert: { url, key, body: JSON.stringify(body), wait_ms: waitMs, ...(deviceKey ? { device_key: deviceKey } : {}) },
  } satisfies PageMessage);
  return Boolean(worker);
}

/** Tells the service worker the server answered the press with this key: it holds it no more. */
export function settlePress(key: string): void {
  navigator.serviceWorker?.controller?.postMessage({ type: SW_MESSAGE.alertSettled, key } satisfies PageMessage);
}

/** Hears the service worker report a queued alert it sent on its own (on `sync` or at start). */
export function onReplayed(listener: (message: Replayed) => void): () => void {
  const container = navigator.serviceWorker;
  if (!container) return () => undefined;
  const handler = (event: MessageEvent) => {
    const replayed = replayedOf(event.data);
    if (replayed) listener(replayed);
  };
  container.addEventListener('message', handler);
  return () => container.removeEventListener('message', handler);
}

/** Resolves once a service worker controls this page, or false after `timeoutMs` or a failure. */
function controlled(timeoutMs: number): Promise<boolean> {
  const container = navigator.serviceWorker;
  if (workerFailed || !container) return Promise.resolve(false);
  if (container.controller) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      container.removeEventListener('controllerchange', onChange);
      stopFailure();
      resolve(value);
    };
    const onChange = () => done(Boolean(container.controller));
    const timer = setTimeout(() => done(Boolean(container.controller)), timeoutMs);
    // Given up on as soon as the worker fails, but not while a slow first install is still going.
    const stopFailure = onOfflineUnavailable((unavailable) => {
      if (!unavailable) return;
      void withinMs(container.getRegistration(), REGISTRATION_ANSWER_MS).then((registration) => {
        if (!registration?.installing) done(false);
      });
    });
    container.addEventListener('controllerchange', onChange);
  });
}

/**
 * True once a service worker controls this page and the emergency page is in its precache.
 * On a first visit it waits (up to `timeoutMs`) for the new worker to install and take control.
 */
export async function offlineReady(timeoutMs = WORKER_READY_WAIT_MS): Promise<boolean> {
  if (!('caches' in window) || !(await controlled(timeoutMs))) return false;
  for (const name of await caches.keys()) {
    if (!name.includes('precache')) continue;
    const cache = await caches.open(name);
    if ((await cache.keys()).some((request) => new URL(request.url).pathname === '/alert.html')) return true;
  }
  return false;
}
