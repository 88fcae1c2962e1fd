import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listeningUrl, OUTBOX_KEY } from './server.js';

const root = path.resolve(import.meta.dirname, '../..');

export interface OutboxProcess {
  url: string;
  /** The SMS this process's dev outbox captured, read over IPC (newest first). */
  sms(): Promise<{ to: string; body: string }[]>;
  stop(): Promise<void>;
}

/** Starts tests/e2e/outbox-process.ts on a port the system picks, with `env` over the test defaults. */
export async function startOutboxProcess(env: Record<string, string>): Promise<OutboxProcess> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'alerta-proxied-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'tests/e2e/outbox-process.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DEV_OUTBOX_KEY: OUTBOX_KEY,
      ...env,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const url = await listeningUrl(child);
  return {
    url,
    sms: () =>
      new Promise((resolve, reject) => {
        const onMessage = (message: { sms?: { to: string; body: string }[] }) => {
          if (!message.sms) return;
          child.off('message', onMessage);
          resolve(message.sms);
        };
        child.on('message', onMessage);
        if (!child.send?.('outbox')) reject(new Error('the outbox process has no IPC channel'));
      }),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
