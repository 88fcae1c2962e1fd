import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededUser, seedUser } from '../e2e/seed.js';
import { type RunningServer, startServer } from '../e2e/server.js';
import { closeAdmin, newStore, npmRun, type Store, sendAlert } from './backup-fixtures.js';
import { dbKind, dbLabel } from './helper.js';

// `npm run backup` copies the database of a server that keeps storing alerts, `npm run restore`
// puts the copy into a new DATA_DIR (SQLite) or an empty database (PostgreSQL), and a server
// started on it answers every alert the first one had acknowledged before the backup began.

/** Clients sending alerts at once while the backup runs. */
const SENDERS = 3;
/** Alerts acknowledged before the backup starts: enough that the copy has real content. */
const BEFORE_BACKUP = 30;

describe(`npm run backup and npm run restore (${dbLabel})`, () => {
  const stores: Store[] = [];
  const servers: RunningServer[] = [];
  const work = mkdtempSync(path.join(os.tmpdir(), 'alerta-backup-file-'));
  let original: Store;
  let server: RunningServer;
  let user: SeededUser;

  beforeAll(async () => {
    original = await newStore();
    stores.push(original);
    server = await startServer({ ...original.env, BENCH_NO_RATE_LIMIT: '1' }, { dataDir: original.dataDir });
    servers.push(server);
    user = await seedUser(server.url, {
      countdownSeconds: 0,
      contacts: [{ name: 'Ana', phone_number: '+351912345678' }],
    });
  }, 60_000);
  afterAll(async () => {
    for (const running of servers) await running.stop({ keepData: true });
    for (const store of stores) await store.drop();
    await closeAdmin();
    rmSync(work, { recursive: true, force: true });
  });

  it('copies a server storing alerts without stopping it, and the restored copy has every acknowledged alert', async () => {
    const acknowledged: { id: string; at: number }[] = [];
    let sending = true;
    const senders = Array.from({ length: SENDERS }, async () => {
      while (sending) {
        const res = await sendAlert(server.url, user.token);
        expect(res.status).toBe(201);
        acknowledged.push({ id: ((await res.json()) as { id: string }).id, at: Date.now() });
      }
    });
    try {
      while (acknowledged.length < BEFORE_BACKUP) await new Promise((resolve) => setTimeout(resolve, 20));
      const file = path.join(work, 'alerta.backup');
      const startedAt = Date.now();
      const backup = await npmRun('backup', ['--out', file], original.env);
      expect(backup.code, backup.output).toBe(0);
      expect(existsSync(`${file}.partial`)).toBe(false);
      // It holds password hashes and phone numbers: readable by its owner only.
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // The server went on answering while the copy was made.
      const during = await sendAlert(server.url, user.token);
      expect(during.status).toBe(201);
      sending = false;
      await Promise.all(senders);

      const before = acknowledged.filter((alert) => alert.at <= startedAt);
      expect(before.length).toBeGreaterThanOrEqual(BEFORE_BACKUP);
      if (dbKind === 'sqlite') expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');

      const restored = await newStore();
      stores.push(restored);
      const restore = await npmRun('restore', ['--from', file], restored.env);
      expect(restore.code, restore.output).toBe(0);

      const again = await startServer({ ...restored.env, BENCH_NO_RATE_LIMIT: '1' }, { dataDir: restored.dataDir });
      servers.push(again);
      const missing: string[] = [];
      for (const alert of before) {
        const res = await fetch(`${again.url}/api/emergency/public/${user.token}/alerts/${alert.id}/`);
        if (res.status !== 200) missing.push(`${alert.id}: ${res.status}`);
      }
      expect(missing).toEqual([]);
    } finally {
      sending = false;
      await Promise.allSettled(senders);
    }
  }, 120_000);

  it('refuses to restore over a database that holds data without --force, and a backup with nowhere to go', async () => {
    const file = path.join(work, 'refused.backup');
    expect((await npmRun('backup', ['--out', file], original.env)).code).toBe(0);
    // The original store holds the running server's data: a plain restore leaves it alone.
    const refused = await npmRun('restore', ['--from', file], original.env);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/--force/);
    expect((await sendAlert(server.url, user.token)).status).toBe(201);

    const missingFile = await npmRun('backup', [], original.env);
    expect(missingFile.code).toBe(1);
    expect(missingFile.output).toContain('usage: npm run backup -- --out <file>');
  }, 60_000);
});
