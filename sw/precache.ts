/// <reference lib="WebWorker" />
import { clientsClaim } from 'workbox-core';
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';

declare const self: ServiceWorkerGlobalScope;

/** Precaches both entries and their assets (the build injects the list); drops caches of older builds. */
export function setUpPrecache(): void {
  precacheAndRoute(self.__WB_MANIFEST);
  cleanupOutdatedCaches();
  // The first install takes the open page at once, so an alert pressed on the very first
  // visit can already be queued offline. Later versions wait for the reload prompt.
  clientsClaim();
}
