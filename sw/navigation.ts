/// <reference lib="WebWorker" />
import { createHandlerBoundToURL } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

/** Paths that open the emergency page. */
export const EMERGENCY_PATHS = [/^\/public\//, /^\/test\//];
/** Paths never answered from the precache. */
// `/a/` is the live page of an alert: it needs the network, and the server serves its own entry.
const SERVER_ONLY = [/^\/api\//, /^\/dev\//, /^\/a\//];

/** Emergency links open the cached `alert.html` with no network at all; other pages get the app shell. */
export function setUpNavigation(): void {
  registerRoute(new NavigationRoute(createHandlerBoundToURL('alert.html'), { allowlist: EMERGENCY_PATHS }));
  registerRoute(
    new NavigationRoute(createHandlerBoundToURL('index.html'), { denylist: [...SERVER_ONLY, ...EMERGENCY_PATHS] }),
  );
}
