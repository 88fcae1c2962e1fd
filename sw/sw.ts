/// <reference lib="WebWorker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';

declare const self: ServiceWorkerGlobalScope;

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Emergency links open the cached emergency page with no network at all.
registerRoute(new NavigationRoute(createHandlerBoundToURL('alert.html'), { allowlist: [/^\/public\//, /^\/test\//] }));
// Every other navigation gets the app shell; the API and dev tools never come from the cache.
registerRoute(
  new NavigationRoute(createHandlerBoundToURL('index.html'), {
    denylist: [/^\/api\//, /^\/dev\//, /^\/public\//, /^\/test\//],
  }),
);

self.addEventListener('message', (event) => {
  if (event.data?.type === 'SKIP_WAITING') void self.skipWaiting();
});
