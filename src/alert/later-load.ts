import { useEffect, useState } from 'react';

type Later = typeof import('./later');

let loaded: Later | undefined;
let loading: Promise<Later> | undefined;

/**
 * Loads the page's later parts (later.tsx) once. A load that failed (offline, with no worker to
 * answer from its cache) is tried again by the next call.
 */
export function loadLater(): Promise<Later> {
  loading ??= import('./later').then(
    (parts) => {
      loaded = parts;
      return parts;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * The page's later parts, undefined until they have loaded. The first draw (the countdown) asks
 * for them once it is on screen, so nothing it does not need is fetched or run before it; a
 * load that failed is tried again when the network comes back.
 */
export function useLater(): Later | undefined {
  const [parts, setParts] = useState(loaded);
  useEffect(() => {
    if (parts) return;
    let mounted = true;
    // Drawn in a task of their own, after the one that ran their code: neither holds the page long.
    const load = () =>
      void loadLater().then(
        (later) => setTimeout(() => mounted && setParts(later)),
        () => undefined,
      );
    load();
    window.addEventListener('online', load);
    return () => {
      mounted = false;
      window.removeEventListener('online', load);
    };
  }, [parts]);
  return parts;
}
