/// <reference lib="WebWorker" />
import type { RouteHandlerCallback } from 'workbox-core';
import { createHandlerBoundToURL, matchPrecache } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { openShellStores, shellFromCache } from './countdown-shell';

/** Paths that open the emergency page. */
export const EMERGENCY_PATHS = [/^\/public\//, /^\/test\//];
/** Paths never answered from the precache. */
// `/a/` is the live page of an alert: it needs the network, and the server serves its own entry.
const SERVER_ONLY = [/^\/api\//, /^\/dev\//, /^\/a\//];

/**
 * The precached page `url`, read whole in the worker and answered as a new response. WebKit
 * (Safari) handed the cache's own response has failed the navigation now and then with no
 * network ("FetchEvent.respondWith received an error: TypeError: Load failed"), the page being
 * in the cache all along; a page of a few kilobytes costs nothing to copy. The emergency page
 * comes with its countdown already in it when the page's data is kept (countdown-shell.ts).
 */
function precachedPage(url: string, shell = false): RouteHandlerCallback {
  const bound = createHandlerBoundToURL(url);
  // The emergency page as cached, kept for this worker's life: its precache entry only changes
  // with a new worker. Each navigation then only reads the page's data.
  let kept: { html: string; init: ResponseInit } | undefined;
  return async (options) => {
    // The page's kept data is read while the cached page is found.
    const writeShell = shell ? shellFromCache(options.url) : undefined;
    if (writeShell && kept) return new Response((await writeShell)(kept.html), kept.init);
    let cached: Response | undefined;
    try {
      cached = await bound(options);
    } catch (error) {
      // The precache's handler went to the network: read the cache directly before giving up.
      cached = await matchPrecache(url);
      if (!cached) throw error;
    }
    const { status, statusText, headers } = cached;
    if (!writeShell) return new Response(await cached.blob(), { status, statusText, headers });
    const html = await cached.text();
    const written = new Headers(headers);
    written.delete('content-length');
    const init = { status, statusText, headers: written };
    if (cached.ok) kept = { html, init };
    return new Response((await writeShell)(html), init);
  };
}

/** Emergency links open the cached `alert.html` with no network at all; other pages get the app shell. */
export function setUpNavigation(): void {
  openShellStores();
  registerRoute(new NavigationRoute(precachedPage('alert.html', true), { allowlist: EMERGENCY_PATHS }));
  registerRoute(new NavigationRoute(precachedPage('index.html'), { denylist: [...SERVER_ONLY, ...EMERGENCY_PATHS] }));
}
