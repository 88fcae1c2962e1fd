import { createServer, type Server } from 'node:http';

/** A 256×256 PNG of one plain colour, the size of a map tile: every tile the map asks for. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAQAAAAEACAMAAABrrFhUAAAAA1BMVEXo5Ny1/BTVAAAAVElEQVR42u3BAQEAAACAkP6v7ggKAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAGAEPAAEccgnDAAAAAElFTkSuQmCC',
  'base64',
);

export interface TileServer {
  /** The MAP_TILE_URL that points at it. */
  template: string;
  origin: string;
  /** The tile paths asked for so far, as `z/x/y`. */
  requests: string[];
  close(): Promise<void>;
}

/** A loopback tile server that answers any `/tiles/{z}/{x}/{y}.png` with a small PNG. */
export async function startTileServer(): Promise<TileServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const match = request.url?.match(/^\/tiles\/(\d+)\/(\d+)\/(\d+)\.png$/);
    if (!match) {
      response.writeHead(404).end();
      return;
    }
    requests.push(`${match[1]}/${match[2]}/${match[3]}`);
    response.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(PNG);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://127.0.0.1:${port}`;
  return {
    template: `${origin}/tiles/{z}/{x}/{y}.png`,
    origin,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
