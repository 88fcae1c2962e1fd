import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import type { AlertTiming, LoopDelay, ServerMessage, ServerRequest } from './server.js';

/** A bench server process and the requests it answers over IPC. */
export interface BenchServer {
  url: string;
  /** An owner and their token; `history`: that many earlier alerts of theirs, and fresh statistics (server.ts). */
  seed(
    options?: Partial<{ contacts: number; countdown: number; language: 'pt' | 'en'; history: number }>,
  ): Promise<string>;
  timings(): Promise<{ alerts: AlertTiming[]; sends: number; loopDelay: LoopDelay }>;
  /** Alerts per second written by direct transactions (bench/direct.ts) for `seconds`. */
  direct(token: string, seconds: number, concurrency: number): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts bench/server.ts on a free loopback port: SQLite in a temp dir, or a fresh PostgreSQL
 * schema; the live page's map tiles from `mapTileUrl` when given.
 */
export async function startBenchServer(
  options: { distDir?: string; pgUrl?: string; mapTileUrl?: string } = {},
): Promise<BenchServer> {
  const child: ChildProcess = fork(path.join(import.meta.dirname, 'server.ts'), [], {
    // BENCH_CPU_PROF=<dir>: the server's CPU profile is written there when it stops (docs/PERFORMANCE.md).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    env: {
      ...process.env,
      ...(options.distDir ? { BENCH_DIST: options.distDir } : {}),
      ...(options.pgUrl ? { BENCH_PG_URL: options.pgUrl } : {}),
      ...(options.mapTileUrl ? { BENCH_MAP_TILE_URL: options.mapTileUrl } : {}),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T extends ServerMessage['type']>(type: T) =>
    new Promise<Extract<ServerMessage, { type: T }>>((resolve, reject) => {
      const onMessage = (message: ServerMessage) => {
        if (message.type !== type && message.type !== 'error') return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (message.type === 'error') reject(new Error(`bench server: ${message.message}`));
        else resolve(message as Extract<ServerMessage, { type: T }>);
      };
      const onExit = (code: number | null) => reject(new Error(`bench server exited with code ${code}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ask = <T extends ServerMessage['type']>(request: ServerRequest, type: T) => {
    const answer = next(type);
    child.send(request);
    return answer;
  };
  const { port } = await next('ready');
  return {
    url: `http://127.0.0.1:${port}`,
    seed: async (o = {}) =>
      (
        await ask(
          {
            type: 'seed',
            contacts: o.contacts ?? 2,
            countdown: o.countdown ?? 10,
            language: o.language ?? 'en',
            history: o.history ?? 0,
          },
          'seeded',
        )
      ).token,
    timings: async () => {
      const { alerts, sends, loopDelay } = await ask({ type: 'timings' }, 'timings');
      return { alerts, sends, loopDelay };
    },
    direct: async (token, seconds, concurrency) =>
      (await ask({ type: 'direct', token, seconds, concurrency }, 'direct')).perSecond,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'stop' } satisfies ServerRequest);
      await exited;
    },
  };
}
