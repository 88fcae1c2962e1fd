// Server processes of the disaster scenarios (scripts/disaster/server.ts: the real app with the
// Twilio adapters, pointed at a fake Twilio on loopback), started, stopped and killed as an
// operator or a crash would: the load test's runs and tests/server/crash-recovery.test.ts.
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** What it printed (with `quiet`; otherwise it went to this process's own output). */
  output(): string;
}

/**
 * Starts one server on `env` (added to this process's environment); resolves once it listens.
 * `quiet` keeps its output for `output()` instead of printing it.
 */
export function startServer(env: Record<string, string>, options: { quiet?: boolean } = {}): Promise<ServerProcess> {
  const child = fork(path.join(import.meta.dirname, 'server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', options.quiet ? 'pipe' : 'inherit', options.quiet ? 'pipe' : 'inherit', 'ipc'],
  });
  let printed = '';
  child.stdout?.on('data', (chunk) => (printed += chunk));
  child.stderr?.on('data', (chunk) => (printed += chunk));
  const output = () => printed;
  return new Promise((resolve, reject) => {
    const early = (code: number | null) =>
      reject(new Error(`a server exited with code ${code} before listening\n${printed}`));
    child.once('exit', early);
    child.once('message', (message: { port: number }) => {
      child.off('exit', early);
      resolve({ url: `http://127.0.0.1:${message.port}`, child, output });
    });
  });
}

/** Resolves once `child` has exited (at once if it has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Kills the server at once, as a crash or an out-of-memory kill would: it writes nothing more. */
export async function killServer(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await exited(server.child);
}

/** Stops the server as a deploy does (SIGTERM: it finishes what it holds). */
export async function stopServer(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await exited(server.child);
}
