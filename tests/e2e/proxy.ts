import { connect, createServer, type Socket } from 'node:net';

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
  let isDown = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (isDown) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://localhost:${port}`,
    down() {
      isDown = true;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      isDown = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
