import { useSyncExternalStore } from 'react';

const unchanging = () => () => {};

/**
 * False while React takes over a page the server drew (as the server rendered it), true from
 * then on, and at once in a page the app draws itself.
 */
export const useHydrated = (): boolean =>
  useSyncExternalStore(
    unchanging,
    () => true,
    () => false,
  );
