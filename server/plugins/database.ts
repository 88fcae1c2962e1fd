import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { type DatabaseHandle, type Dialect, migrateToLatest } from '../db/index.js';
import type { Database } from '../db/schema.js';

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
