import type { StateCreator } from 'zustand';
import type { PublicConfig } from '../../common/api/config';
import type { Store } from './index';

export interface ConfigSlice {
  /** The server's prices, contact limits and trial length (GET /api/config/); null until they arrive. */
  serverConfig: PublicConfig | null;
  /** The request for them while one is under way, so pages shown meanwhile share it. */
  serverConfigLoad: Promise<void> | null;
  setServerConfig(config: PublicConfig): void;
  setServerConfigLoad(load: Promise<void> | null): void;
}

/** The server's configuration of plans, kept once fetched (src/api/config.ts fetches it). */
export const createConfigSlice: StateCreator<Store, [], [], ConfigSlice> = (set) => ({
  serverConfig: null,
  serverConfigLoad: null,
  setServerConfig(serverConfig) {
    set({ serverConfig });
  },
  setServerConfigLoad(serverConfigLoad) {
    set({ serverConfigLoad });
  },
});
