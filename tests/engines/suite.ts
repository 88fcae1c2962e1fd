import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type RunningServer, startServer } from '../e2e/server.js';
import { type Engine, type EngineName, launch } from './engines.js';

/**
 * One server for a suite's tests, started before them and stopped after, and a fresh engine (a
 * new profile) for each test: a service worker or cache that goes wrong in one test (WebKitGTK's
 * has been seen to, on a loaded machine) cannot carry into the next, and no test leans on a worker
 * an earlier one installed.
 */
export interface EngineSuite {
  readonly engine: Engine;
  readonly server: RunningServer;
  /** Stops the server and keeps its data: the page's "no network". */
  stopServer(): Promise<void>;
  /** Starts the server again on the same port and data directory. */
  restartServer(): Promise<void>;
}

/** Registers the suite's set-up and tear-down: a server with `env` and the engine `name`. */
export function engineSuite(name: EngineName, env: Record<string, string>): EngineSuite {
  let engine: Engine | undefined;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startServer(env);
  }, 120_000);
  beforeEach(async () => {
    engine = await launch(name);
  }, 60_000);
  afterEach(async () => {
    await engine?.quit();
    engine = undefined;
  });
  afterAll(async () => {
    await server?.stop();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (!value) throw new Error(`the ${what} has not started`);
    return value;
  };
  return {
    get engine() {
      return started(engine, 'engine');
    },
    get server() {
      return started(server, 'server');
    },
    stopServer: () => started(server, 'server').stop({ keepData: true }),
    async restartServer() {
      const { port, dataDir } = started(server, 'server');
      server = await startServer(env, { port, dataDir });
    },
  };
}
