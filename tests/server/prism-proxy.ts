import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

const PRISM = fileURLToPath(new URL('../../node_modules/@stoplight/prism-cli/dist/index.js', import.meta.url));

/** One violation Prism found: where (`request.body.pin`, `response.body`), what, and how bad. */
export interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

/** An answer that went through the proxy, with what Prism said of the request and of the answer. */
export interface Exchange {
  operation: string;
  status: number;
  body: unknown;
  headers: Headers;
  request: Violation[];
  response: Violation[];
}

export interface Call {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON unless `form` is set. */
  json?: unknown;
  form?: Record<string, string>;
}

/** A port nothing listens on now, for Prism to take. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Errors only: Prism also warns of what the document leaves open, which is no broken promise. */
const errorsIn = (violations: Violation[]) => violations.filter((violation) => violation.severity === 'Error');

/**
 * Stoplight's Prism as a validating proxy in front of a listening app: every request is checked
 * against the document the app serves and forwarded as it is; every answer is checked against
 * the document on its way back. Its findings come back in each answer's `sl-violations` header.
 */
export async function prismProxy(app: FastifyInstance) {
  const upstream = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-prism-'));
  const document = path.join(dir, 'openapi.json');
  writeFileSync(document, (await app.inject('/api/openapi.json')).body);
  const port = await freePort();
  const prism: ChildProcess = spawn(
    process.execPath,
    [PRISM, 'proxy', document, upstream, '--port', String(port), '--host', '127.0.0.1', '--errors', 'false'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${log}`)), 60_000);
    const read = (chunk: Buffer) => {
      log = `${log}${chunk}`.slice(-20_000);
      if (log.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    prism.stdout?.on('data', read);
    prism.stderr?.on('data', read);
    prism.once('exit', (code) => reject(new Error(`Prism exited (${code}):\n${log}`)));
  });
  const origin = `http://127.0.0.1:${port}`;

  /** Sends one request through Prism; `operation` names what the journey meant to call. */
  async function call(operation: string, target: string, options: Call = {}): Promise<Exchange> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.json === 'string' ? options.json : JSON.stringify(options.json);
    }
    const res = await fetch(`${origin}${target}`, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    const text = await res.text();
    const said = JSON.parse(res.headers.get('sl-violations') ?? '[]') as Violation[];
    const from = (side: string) => errorsIn(said.filter((violation) => violation.location[0] === side));
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: kept as text.
    }
    return {
      operation,
      status: res.status,
      body: parsed,
      headers: res.headers,
      request: from('request'),
      response: from('response'),
    };
  }

  return {
    call,
    /** Prism's own log, for a failure's message. */
    log: () => log,
    async close() {
      prism.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type PrismProxy = Awaited<ReturnType<typeof prismProxy>>;
