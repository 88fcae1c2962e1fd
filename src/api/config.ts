import { useEffect } from 'react';
import type { PublicConfig } from '../../common/api/config';
import { configRoutes } from '../../common/api/routes';
import { DEFAULT_PUBLIC_CONFIG } from '../../common/default-config';
import { useStore } from '../store';
import { call } from './client';

/** The server's defaults: what the app shows until the server's own numbers arrive, or while offline. */
export const FALLBACK_CONFIG: PublicConfig = DEFAULT_PUBLIC_CONFIG;

const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** True when `data` has every number the pages show (an answer of another shape is not used). */
function isPublicConfig(data: unknown): data is PublicConfig {
  const config = data as Partial<PublicConfig> | null;
  return (
    isAmount(config?.trial_days) &&
    isAmount(config?.sms_price_eur) &&
    Array.isArray(config?.countdown_choices) &&
    (['basic', 'premium'] as const).every((plan) => {
      const terms = config?.plans?.[plan];
      return isAmount(terms?.price_eur) && isAmount(terms?.contact_limit) && typeof terms?.gps === 'boolean';
    })
  );
}

/**
 * Fetches GET /api/config/ once and keeps it in the store; a failure (offline, no answer) leaves
 * the fallback in place and the next page that needs the numbers asks again. An answer that
 * arrives after the store was reset is dropped.
 */
export function loadServerConfig(): Promise<void> {
  const { serverConfig, serverConfigLoad } = useStore.getState();
  if (serverConfig) return Promise.resolve();
  if (serverConfigLoad) return serverConfigLoad;
  const current = () => useStore.getState().serverConfigLoad === load;
  const load: Promise<void> = call(configRoutes.get)
    .json<unknown>()
    .then((data) => {
      if (current() && isPublicConfig(data)) useStore.getState().setServerConfig(data);
    })
    .catch(() => {})
    .finally(() => {
      if (current()) useStore.getState().setServerConfigLoad(null);
    });
  useStore.getState().setServerConfigLoad(load);
  return load;
}

/** The prices, contact limits and trial length to show: the server's once known, the fallback until then. */
export function useServerConfig(): PublicConfig {
  const config = useStore((state) => state.serverConfig);
  useEffect(() => {
    if (!config) void loadServerConfig();
  }, [config]);
  return config ?? FALLBACK_CONFIG;
}
