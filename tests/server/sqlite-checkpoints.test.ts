import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/index.js';
import { FALLBACK_CHECKPOINT_PAGES } from '../../server/db/sqlite-checkpoints.js';
import { SQLite } from '../../server/db/sqlite-driver.js';
import { newId } from '../../server/lib/ids.js';

describe('SQLite WAL checkpoints off the event loop', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alerta-wal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('copies what the server wrote into the file from a worker, the server connection only as a fallback', async () => {
    const handle = openDatabase({ dataDir: dir });
    try {
      await sql`create table wal_rows (id text primary key)`.execute(handle.db);
      for (let i = 0; i < 200; i += 1) await sql`insert into wal_rows (id) values (${newId()})`.execute(handle.db);
      const checkpointer = handle.checkpointer;
      if (!checkpointer) throw new Error('no checkpointer for a file database');
      // The next round takes in everything written so far: every frame of the WAL is in the file.
      let round = await checkpointer.next();
      while (round.log === 0 || round.checkpointed < round.log) round = await checkpointer.next();
      expect(round.busy).toBe(0);
      expect(round.checkpointed).toBe(round.log);
      // A reader opening the file alone (no WAL) sees every row.
      const reader = new SQLite(path.join(dir, 'alerta.sqlite'), { readonly: true });
      try {
        expect(reader.prepare('select count(*) as n from wal_rows').get()).toEqual({ n: 200 });
      } finally {
        reader.close();
      }
      // The server's own connection checkpoints only far past SQLite's default of 1,000 pages.
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(handle.db);
      expect(rows).toEqual([{ wal_autocheckpoint: FALLBACK_CHECKPOINT_PAGES }]);
      expect(FALLBACK_CHECKPOINT_PAGES).toBeGreaterThan(1000);
    } finally {
      await handle.close();
    }
    // Closed: the last connection folded the WAL into the file and removed it.
    expect(() => statSync(path.join(dir, 'alerta.sqlite-wal'))).toThrow();
  });

  it('lets a process with nothing else to do finish closing the database', () => {
    // Run alone in a child: with nothing else to keep it alive, awaiting the worker's end must not
    // leave the process waiting forever (Node exits 13 on a top-level await that never settles).
    const script = `
      import { openDatabase, migrateToLatest } from ${JSON.stringify(path.resolve('server/db/index.ts'))};
      const handle = openDatabase({ dataDir: ${JSON.stringify(path.join(dir, 'child'))} });
      await migrateToLatest(handle.db);
      await handle.close();
      console.log('closed');
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('closed');
    expect(child.status).toBe(0);
  });
});
