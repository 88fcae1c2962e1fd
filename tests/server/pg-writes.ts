import net from 'node:net';
import type pg from 'pg';

/**
 * The writes this process makes to PostgreSQL's port while `work` runs: each is one trip of the
 * client's messages to the server (a corked socket sends what was written meanwhile in one).
 */
export async function writesDuring<T>(
  work: () => Promise<T>,
  ignored?: pg.Client,
): Promise<{ writes: number; result: T }> {
  const socket = net.Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  const originals = { _write: socket._write, _writev: socket._writev };
  let writes = 0;
  for (const name of ['_write', '_writev'] as const) {
    const original = originals[name];
    socket[name] = function (this: net.Socket, ...args: unknown[]) {
      if (this.remotePort === 5432 && this !== ignored?.connection.stream) writes += 1;
      return original.apply(this, args);
    };
  }
  try {
    const result = await work();
    return { writes, result };
  } finally {
    Object.assign(socket, originals);
  }
}
