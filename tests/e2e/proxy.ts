import { startTcpProxy } from '../server/faults/tcp-proxy.js';

export interface Link {
  /** The origin to open pages on, through the link. */
  url: string;
  /** Cuts the link: open connections drop, new ones are refused, as when a phone loses signal. */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

/**
 * A TCP link to the server that a test can cut. Chromium's offline emulation does not reach
 * every request a service worker makes (a Background Sync replay goes out regardless), so the
 * offline tests cut the network for real here as well.
 */
export async function startLink(targetPort: number): Promise<Link> {
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: targetPort });
  return {
    url: `http://localhost:${proxy.port}`,
    down: () => proxy.cut(),
    up: () => proxy.restore(),
    close: () => proxy.close(),
  };
}
