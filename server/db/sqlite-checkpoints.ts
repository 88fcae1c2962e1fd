import { Worker } from 'node:worker_threads';
import { SQLITE_MODULE, type SQLiteDatabase } from './sqlite-driver.js';

/** How often the checkpointer copies what the WAL holds into the database file. */
const CHECKPOINT_EVERY_MS = 250;
/**
 * The WAL size (pages) at which the server's own connection checkpoints after all: only
 * when the checkpointer has fallen far behind or stopped, so the WAL never grows unbounded.
 */
export const FALLBACK_CHECKPOINT_PAGES = 20_000;

// The checkpointer's own code: CommonJS, run from source as it is, under tsx, Vitest or the build alike.
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
const checkpoint = () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ type: 'checkpointed', ...result });
  } catch (error) {
    parentPort.postMessage({ type: 'failed', message: String(error && error.message) });
  }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** What one checkpoint did: the WAL's frames, and how many are now in the database file. */
export interface Checkpointed {
  busy: number;
  log: number;
  checkpointed: number;
}

export interface Checkpointer {
  /** Resolves with the next checkpoint's result, or rejects with its failure. */
  next(): Promise<Checkpointed>;
  stop(): Promise<void>;
}

/**
 * Checkpoints a WAL-mode SQLite file from a worker thread with its own connection. A checkpoint
 * copies the WAL into the database file and waits for the disk twice (synchronous = NORMAL);
 * done by the server's connection (SQLite's default, every thousand pages), it would hold the
 * event loop, and every request, meanwhile (docs/PERFORMANCE.md). PASSIVE: it never waits for a
 * lock and never holds up the server's writes; the server's connection checkpoints only past
 * `FALLBACK_CHECKPOINT_PAGES`.
 */
export function startCheckpointer(sqlite: SQLiteDatabase, file: string): Checkpointer {
  sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`);
  const worker = new Worker(CHECKPOINTER, {
    eval: true,
    workerData: { file, module: SQLITE_MODULE, everyMs: CHECKPOINT_EVERY_MS },
  });
  // Never keeps the process alive on its own.
  worker.unref();
  const waiting: { resolve: (result: Checkpointed) => void; reject: (error: Error) => void }[] = [];
  worker.on('message', (message: ({ type: 'checkpointed' } & Checkpointed) | { type: 'failed'; message: string }) => {
    for (const next of waiting.splice(0)) {
      if (message.type === 'checkpointed') next.resolve(message);
      else next.reject(new Error(`checkpoint failed: ${message.message}`));
    }
  });
  // A checkpointer that fails leaves the server's own fallback checkpoints: nothing is lost.
  worker.on('error', () => {});
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopping: Promise<void> | undefined;
  return {
    next: () => new Promise((resolve, reject) => waiting.push({ resolve, reject })),
    stop() {
      // Held until it has closed its connection: an unreferenced worker's exit never keeps the
      // process, so awaiting it would leave the caller waiting in a process about to end.
      stopping ??= (async () => {
        worker.ref();
        worker.postMessage('stop');
        await exited;
      })();
      return stopping;
    },
  };
}
