import { readFileSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { type ApiError, detailError } from '../lib/errors.js';
import { addressGroup, throttled } from './security.js';

/** A request's head and body must have arrived this long after it began (ms). */
const REQUEST_TIMEOUT_MS = 8_000;

/**
 * The server's timeouts, for Fastify's options: a request still arriving (half a request line, a
 * stalled body) gets 408 within REQUEST_TIMEOUT_MS and half a second (Node looks twice a
 * second); an idle keep-alive connection
 * closes after 5 s (and Node's second); a connection on which nothing moves either way for 30 s
 * (an answer its client does not read) closes. A live event stream's request has all arrived and
 * its heartbeat moves more often, so none of these ends it.
 */
export const SERVER_TIMEOUTS = {
  requestTimeout: REQUEST_TIMEOUT_MS,
  keepAliveTimeout: 5_000,
  connectionTimeout: 30_000,
  http: { headersTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 500 },
};

/** The open-file limit assumed where /proc/self/limits cannot be read (not Linux). */
const DEFAULT_FILE_LIMIT = 1024;
/** Descriptors kept from client connections: a quarter of the limit, never fewer than this. */
const MIN_RESERVED_FILES = 64;
/** How long a refused client waits before trying again (s). */
const REFUSED_RETRY_S = 5;
/** Errors of the listening socket are logged at most this often (ms): under EMFILE they come by thousands. */
const LOG_EVERY_MS = 10_000;

/** The soft limit on this process's open files (`ulimit -n`), read from /proc/self/limits. */
export function openFileLimit(read = () => readFileSync('/proc/self/limits', 'utf8')): number {
  try {
    const found = read().match(/^Max open files\s+(\d+|unlimited)\s/m)?.[1];
    if (found === 'unlimited') return 1 << 20;
    if (found) return Number(found);
  } catch {
    // Not Linux: the usual default.
  }
  return DEFAULT_FILE_LIMIT;
}

/** How many client connections this process holds: in all, and from one address. */
export interface ConnectionCaps {
  total: number;
  perAddress: number;
}

/**
 * MAX_CONNECTIONS, else three quarters of the open-file limit: the rest stays for the database,
 * the files served, the logs and the providers' connections, so that accepting clients never
 * leaves the process without a descriptor for its own work.
 */
export function connectionCaps(config: Config, fileLimit = openFileLimit()): ConnectionCaps {
  const reserved = Math.max(MIN_RESERVED_FILES, Math.ceil(fileLimit / 4));
  const total = config.MAX_CONNECTIONS || Math.max(1, fileLimit - reserved);
  return { total, perAddress: Math.min(total, config.CONNECTIONS_PER_ADDRESS) };
}

interface Held {
  socket: Socket;
  group: string;
  /** The request being answered on it, if any. */
  request: IncomingMessage | undefined;
}

/**
 * A connection that may be closed for another: nothing is being answered on it (idle between
 * requests, or a request still arriving: half a request line, a stalled body). One whose request
 * is in hand, or a live event stream, is busy and kept.
 */
const isIdle = (held: Held) => !held.request?.complete;

/**
 * Who holds the connections, by address group: when a cap is reached the new connection takes the
 * place of an idle one, the oldest of its own address at that address's cap, else the oldest of
 * an address holding most. A client that opens many connections and sends nothing loses its own
 * first, and someone arriving with one request is never kept out by them.
 */
export class ConnectionLedger {
  private readonly groups = new Map<string, Set<Held>>();
  private readonly bySocket = new WeakMap<Socket, Held>();
  /** The address groups by how many connections they hold (index), to find the largest at once. */
  private readonly bySize: Set<string>[] = [];
  private largest = 0;
  private count = 0;

  constructor(
    private readonly caps: ConnectionCaps,
    /** The address group counted for a socket; one group for all behind a proxy. */
    private readonly groupOf: (socket: Socket) => string,
  ) {}

  /** Open connections. */
  get size(): number {
    return this.count;
  }

  /** Takes a new connection, closing the idle ones it replaces (`evicted`), or gives the refusal to send instead. */
  admit(socket: Socket): { evicted: Socket[]; refusal: ApiError | null } {
    const group = this.groupOf(socket);
    const evicted: Socket[] = [];
    const own = this.groups.get(group);
    if (own && own.size >= this.caps.perAddress) {
      const victim = oldestIdle(own);
      if (!victim) return { evicted, refusal: throttled(REFUSED_RETRY_S) };
      evicted.push(this.drop(victim));
    }
    if (this.count >= this.caps.total) {
      const victim = this.idleOfLargest();
      if (!victim) return { evicted, refusal: OVERLOADED };
      evicted.push(this.drop(victim));
    }
    const held: Held = { socket, group, request: undefined };
    const set = this.groups.get(group) ?? new Set<Held>();
    this.groups.set(group, set);
    set.add(held);
    this.resized(group, set.size - 1, set.size);
    this.bySocket.set(socket, held);
    this.count += 1;
    return { evicted, refusal: null };
  }

  /** A request arrived on `socket`: busy once it has all arrived, until its answer is done. */
  request(socket: Socket, request: IncomingMessage, response: ServerResponse): void {
    const held = this.bySocket.get(socket);
    if (!held) return;
    held.request = request;
    response.once('close', () => {
      if (held.request === request) held.request = undefined;
    });
  }

  /** The connection closed. */
  closed(socket: Socket): void {
    const held = this.bySocket.get(socket);
    if (held) this.drop(held);
  }

  private drop(held: Held): Socket {
    const set = this.groups.get(held.group);
    if (set?.delete(held)) {
      this.count -= 1;
      this.resized(held.group, set.size + 1, set.size);
      if (set.size === 0) this.groups.delete(held.group);
    }
    this.bySocket.delete(held.socket);
    return held.socket;
  }

  private resized(group: string, from: number, to: number): void {
    this.bySize[from]?.delete(group);
    if (to > 0) {
      const bucket = this.bySize[to] ?? new Set<string>();
      bucket.add(group);
      this.bySize[to] = bucket;
    }
    this.largest = Math.max(this.largest, to);
    while (this.largest > 0 && !this.bySize[this.largest]?.size) this.largest -= 1;
  }

  private idleOfLargest(): Held | undefined {
    for (let size = this.largest; size > 0; size -= 1) {
      for (const group of this.bySize[size] ?? []) {
        const idle = oldestIdle(this.groups.get(group) ?? []);
        if (idle) return idle;
      }
    }
    return undefined;
  }
}

const OVERLOADED = detailError(
  503,
  `The server is overloaded. Please try again in ${REFUSED_RETRY_S} seconds.`,
  'overloaded',
  { 'retry-after': String(REFUSED_RETRY_S) },
);

const oldestIdle = (held: Iterable<Held>) => {
  for (const one of held) if (isIdle(one)) return one;
  return undefined;
};

/** The refusal written on a connection that has no request yet: the API's error shape, then closed. */
function refuse(socket: Socket, error: ApiError): void {
  const body = JSON.stringify(error.body);
  const headers = Object.entries(error.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.pause();
  socket.write(
    `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${headers.join('')}Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/**
 * Caps the client connections (connectionCaps), and keeps the listening socket's errors (EMFILE
 * while accepting) in the log: unhandled, they would stop the process for everyone.
 */
export default fp(
  async function connections(app: FastifyInstance, options: { config: Config; caps?: ConnectionCaps }) {
    const caps = options.caps ?? connectionCaps(options.config);
    // Behind a proxy every connection comes from it: its own limits stand for the clients'. A
    // load test's many connections come from one address, and it lifts per-address limits.
    const perAddress = options.config.TRUST_PROXY === false && !options.config.BENCH_NO_RATE_LIMIT;
    const ledger = new ConnectionLedger(caps, (socket) => (perAddress ? addressGroup(socket.remoteAddress ?? '') : ''));
    const server = app.server;
    server.on('connection', (socket: Socket) => {
      const { evicted, refusal } = ledger.admit(socket);
      for (const other of evicted) other.destroy();
      if (refusal) return refuse(socket, refusal);
      socket.once('close', () => ledger.closed(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      ledger.request(request.socket, request, response),
    );
    let loggedAt = 0;
    let unlogged = 0;
    server.once('listening', () =>
      server.on('error', (error) => {
        const now = Date.now();
        if (now - loggedAt < LOG_EVERY_MS) {
          unlogged += 1;
          return;
        }
        app.log.error({ err: error, since_last: unlogged, connections: ledger.size }, 'listening socket error');
        loggedAt = now;
        unlogged = 0;
      }),
    );
    app.log.debug({ caps }, 'connection caps');
  },
  { name: 'connections' },
);
