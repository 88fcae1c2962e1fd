import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import * as fakeIndexedDb from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './built-app.js';

// The built service worker evaluated as each engine would start it: with Background Sync
// (Chromium) and without (Safari on iPhone, Firefox), where Workbox's Queue calls its
// `onSync` from inside its own constructor while the worker script is still being evaluated.

const ORIGIN = 'https://alerta.test';
const ALERTS = `${ORIGIN}/api/emergency/public/tok_abc/alerts/`;
let outDir: string;
let script: vm.Script;

type Listener = (event: unknown) => void;
interface Sent {
  url: string;
  key: string | null;
  body: string;
}

/** A worker global scope with just what the built worker touches, a fetch the test controls and a shared IndexedDB. */
function startWorker({ sync, idb, online }: { sync: boolean; idb: IDBFactory; online: () => boolean }) {
  const listeners = new Map<string, Listener[]>();
  const sent: Sent[] = [];
  const waits: Promise<unknown>[] = [];
  const messages: unknown[] = [];
  /** Request as a worker has it: relative URLs resolve against the worker's origin. */
  class WorkerRequest extends Request {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' ? new URL(input, ORIGIN).href : input, init);
    }
  }
  const fetch = async (input: Request) => {
    const request = input instanceof Request ? input : new WorkerRequest(input);
    if (!online()) throw new TypeError('Failed to fetch');
    // Only alerts are counted: a navigation the precache cannot answer here also reaches fetch.
    if (request.method !== 'POST') return new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } });
    sent.push({ url: request.url, key: request.headers.get('idempotency-key'), body: await request.text() });
    return Response.json({ id: 'a1', deliveries: [] }, { status: 201 });
  };
  class ExtendableEvent {
    constructor(readonly type: string) {}
    waitUntil(promise: Promise<unknown>) {
      waits.push(promise.catch(() => undefined));
    }
  }
  class FetchEvent extends ExtendableEvent {
    response: Promise<Response> | undefined;
    constructor(readonly request: Request) {
      super('fetch');
    }
    respondWith(response: Promise<Response>) {
      this.response = response;
      response.catch(() => undefined);
    }
  }
  const scope: Record<string, unknown> = {
    location: new URL(`${ORIGIN}/sw.js`),
    registration: sync ? { scope: `${ORIGIN}/`, sync: { register: async () => undefined } } : { scope: `${ORIGIN}/` },
    addEventListener: (type: string, listener: Listener) =>
      listeners.set(type, [...(listeners.get(type) ?? []), listener]),
    clients: {
      matchAll: async () => [{ postMessage: (m: unknown) => messages.push(m) }],
      claim: async () => undefined,
    },
    skipWaiting: async () => undefined,
    caches: { keys: async () => [], open: async () => ({ keys: async () => [] }), match: async () => undefined },
    fetch,
    Request: WorkerRequest,
    Response,
    Headers,
    URL,
    Blob,
    DOMException,
    FetchEvent,
    setTimeout,
    clearTimeout,
    console,
    // IDBDatabase, IDBCursor, IDBKeyRange…: the classes Workbox's IndexedDB wrapper checks against.
    ...fakeIndexedDb,
    indexedDB: idb,
  };
  scope.self = scope;
  const context = vm.createContext(scope);
  script.runInContext(context);

  const dispatch = (type: string, event: unknown) => {
    for (const listener of listeners.get(type) ?? []) listener(event);
  };
  return {
    sent,
    messages,
    listeners,
    /** Lets every pending `waitUntil` and the replay started at evaluation finish. */
    async settle() {
      for (let i = 0; i < 5; i += 1) {
        await Promise.all(waits.splice(0));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    /** A page's request through the worker; the worker's answer. */
    async request(url: string, init?: RequestInit & { mode?: RequestMode }) {
      const event = new FetchEvent(new Request(url, init));
      dispatch('fetch', event);
      return event.response;
    },
    /** A navigation to `url` (a page of the app opening). */
    navigate(url: string) {
      // Node's Request refuses mode "navigate"; the worker reads only `mode` and `url`.
      const event = new FetchEvent({ url, mode: 'navigate', method: 'GET', headers: new Headers() } as Request);
      dispatch('fetch', event);
    },
    message(data: unknown) {
      dispatch('message', Object.assign(new ExtendableEvent('message'), { data, ports: [] }));
    },
    /** The install event, with Static Routing's `addRoutes` where the engine has it (Chromium). */
    install(addRoutes?: (rules: unknown) => Promise<void>) {
      const event = new ExtendableEvent('install');
      dispatch('install', addRoutes ? Object.assign(event, { addRoutes }) : event);
    },
  };
}

const alertInit = (key: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': key },
  body: JSON.stringify({ mode: 'real', location: null, location_error: 'timeout' }),
});

describe('the built service worker on each engine', () => {
  beforeAll(async () => {
    outDir = await buildApp();
    script = new vm.Script(readFileSync(path.join(outDir, 'sw.js'), 'utf8'), { filename: 'sw.js' });
  }, 180_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('routes the alert POST straight to the network where the engine has Static Routing (Chromium)', async () => {
    const worker = startWorker({ sync: true, idb: new fakeIndexedDb.IDBFactory(), online: () => true });
    const rules: unknown[] = [];
    worker.install(async (rule) => void rules.push(rule));
    expect(rules).toEqual([
      {
        condition: { urlPattern: { pathname: '/api/emergency/public/:token/alerts/' }, requestMethod: 'POST' },
        source: 'network',
      },
    ]);
    // A browser that refuses the rule (an older syntax) installs the worker all the same.
    worker.install(() => {
      throw new TypeError('unknown condition');
    });
    worker.install(async () => {
      throw new TypeError('unknown condition');
    });
    // Without Static Routing (Safari, Firefox) the worker's own route sends the alert.
    worker.install();
    await worker.settle();
    expect((await worker.request(ALERTS, alertInit('routed')))?.status).toBe(201);
  });

  for (const sync of [false, true]) {
    const engine = sync ? 'with Background Sync (Chromium)' : 'without Background Sync (Safari, Firefox)';

    it(`starts ${engine} and listens for pages`, async () => {
      const worker = startWorker({ sync, idb: new fakeIndexedDb.IDBFactory(), online: () => true });
      expect([...worker.listeners.keys()]).toEqual(expect.arrayContaining(['install', 'activate', 'fetch', 'message']));
      await worker.settle();
    });

    it(`${engine}: queues an alert pressed offline and sends it once when the worker starts again`, async () => {
      const idb = new fakeIndexedDb.IDBFactory();
      let online = false;
      const first = startWorker({ sync, idb, online: () => online });
      const answer = await first.request(ALERTS, alertInit('key-1'));
      expect(answer?.status).toBe(202);
      expect(await answer?.json()).toMatchObject({ code: 'queued' });
      // The same key again while offline adds nothing to the queue.
      expect((await first.request(ALERTS, alertInit('key-1')))?.status).toBe(202);
      await first.settle();
      expect(first.sent).toEqual([]);

      online = true;
      const second = startWorker({ sync, idb, online: () => online });
      await second.settle();
      expect(second.sent).toEqual([
        {
          url: ALERTS,
          key: 'key-1',
          body: JSON.stringify({ mode: 'real', location: null, location_error: 'timeout' }),
        },
      ]);
      expect(second.messages).toEqual([expect.objectContaining({ type: 'ALERT_REPLAYED', key: 'key-1', status: 201 })]);

      // Nothing is left: a third start sends nothing more.
      const third = startWorker({ sync, idb, online: () => online });
      await third.settle();
      expect(third.sent).toEqual([]);
    });

    it(`${engine}: a page of the app opening sends the queue at once, without waiting for a sync`, async () => {
      let online = false;
      const worker = startWorker({ sync, idb: new fakeIndexedDb.IDBFactory(), online: () => online });
      await worker.request(ALERTS, alertInit('key-2'));
      await worker.settle();
      online = true;
      worker.navigate(`${ORIGIN}/test/tok_abc/`);
      await worker.settle();
      expect(worker.sent.map((s) => s.key)).toEqual(['key-2']);
      worker.navigate(`${ORIGIN}/`);
      await worker.settle();
      expect(worker.sent.map((s) => s.key)).toEqual(['key-2']);
    });

    it(`${engine}: a press the server answered the page is let go of; one the page's POST failed goes at once`, async () => {
      let online = true;
      const worker = startWorker({ sync, idb: new fakeIndexedDb.IDBFactory(), online: () => online });
      const body = JSON.stringify({ mode: 'real', location: null, location_error: 'timeout' });
      const press = (key: string, wait: number) =>
        worker.message({
          type: 'ALERT_PRESSED',
          alert: { url: '/api/emergency/public/tok_abc/alerts/', key, body, wait_ms: wait },
        });
      // Posted past the worker (Chromium) and answered: the page says so.
      press('answered', 30);
      worker.message({ type: 'ALERT_SETTLED', key: 'answered' });
      // Posted past the worker and refused by the network: handed over again with no wait.
      online = false;
      press('refused', 10_000);
      press('refused', 0);
      await worker.settle();
      expect(worker.sent).toEqual([]);
      online = true;
      worker.navigate(`${ORIGIN}/`);
      await worker.settle();
      expect(worker.sent.map((s) => s.key)).toEqual(['refused']);
    });

    it(`${engine}: a held press goes by itself when the page never sends it, and not when it does`, async () => {
      const worker = startWorker({ sync, idb: new fakeIndexedDb.IDBFactory(), online: () => true });
      const body = JSON.stringify({ mode: 'real', location: null, location_error: 'timeout' });
      worker.message({
        type: 'ALERT_PRESSED',
        alert: { url: '/api/emergency/public/tok_abc/alerts/', key: 'closed-tab', body, wait_ms: 30 },
      });
      worker.message({
        type: 'ALERT_PRESSED',
        alert: { url: '/api/emergency/public/tok_abc/alerts/', key: 'open-tab', body, wait_ms: 30 },
      });
      // The open tab got its fix and sent the alert itself before the wait ended.
      await worker.request(ALERTS, alertInit('open-tab'));
      // A message naming another address is ignored.
      worker.message({
        type: 'ALERT_PRESSED',
        alert: { url: 'https://elsewhere.test/steal', key: 'x', body, wait_ms: 0 },
      });
      await worker.settle();
      expect(worker.sent.map((s) => s.key).sort()).toEqual(['closed-tab', 'open-tab']);
      expect(worker.sent.find((s) => s.key === 'closed-tab')).toEqual({ url: ALERTS, key: 'closed-tab', body });
    });
  }
});
