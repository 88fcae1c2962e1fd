import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { type DatabaseHandle, type Dialect, databaseNow, migrateToLatest } from '../db/index.js';
import type { Database } from '../db/schema.js';
import type { DatabaseClock } from '../lib/clock.js';
import { CLOCK_OFF_WARNING_MS, CLOCK_SYNC_MS } from '../lib/reliability.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Database>;
    dialect: Dialect;
  }
}

/** Exposes the database, runs the migrations before the app is ready, and closes it last. */
export default fp(
  async function database(app: FastifyInstance, options: { handle: DatabaseHandle; closeOnExit: boolean }) {
    await migrateToLatest(options.handle.db, options.handle.pgSchema);
    app.decorate('db', options.handle.db);
    app.decorate('dialect', options.handle.dialect);
    if (options.closeOnExit) app.addHook('onClose', () => options.handle.close());
  },
  { name: 'database' },
);

/**
 * Sets the server's clock to the database's now, before anything is scheduled, and again every
 * CLOCK_SYNC_MS (a VM's clock jumps after a pause); an offset past CLOCK_OFF_WARNING_MS is logged.
 */
export async function followDatabaseClock(app: FastifyInstance, clock: DatabaseClock): Promise<void> {
  const sync = async () => {
    const offset = await clock.sync(() => databaseNow(app.db, app.dialect));
    if (Math.abs(offset) > CLOCK_OFF_WARNING_MS) {
      app.log.warn(
        { offsetMs: offset },
        "this machine's clock is off the database's: scheduled work follows the database's",
      );
    }
  };
  await sync();
  app.periodic.every('clock', CLOCK_SYNC_MS, sync);
}
