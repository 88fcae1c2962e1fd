import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One request written byte for byte on a TCP connection: app.inject (like any HTTP client)
 * would tidy the request target before the server saw it.
 */
export function rawGet(port: number, target: string, from = '127.0.0.1'): Promise<RawResponse> {
  return rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: alerta.test\r\nConnection: close\r\n\r\n`, from);
}

/** `request` written as it is (a broken one too), and the answer read until the server closes. */
export function rawRequest(port: number, request: string, from = '127.0.0.1'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that refuses a request may reset the connection after its answer: the answer counts.
    socket.on('error', (error) => {
      if (chunks.length === 0) reject(error);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
    socket.write(request);
  });
}
