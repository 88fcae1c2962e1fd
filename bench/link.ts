import { connect, createServer, type Socket } from 'node:net';

/** A TCP link to a server that can be cut, so "offline" means no byte reaches the server at all. */
export interface Link {
  url: string;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

/**
 * Chromium's offline emulation does not cover every request a service worker makes, so the
 * warm offline runs go through this link and cut it.
 */
export async function startLink(targetPort: number): Promise<Link> {
  let isDown = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (isDown) return void client.destroy();
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
