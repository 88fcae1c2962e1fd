import type { Kysely } from 'kysely';

/**
 * Binds the refresh grace to the client that used the token: who used a refresh token
 * (a hash of its address and User-Agent, and the id of its login device cookie, if any),
 * and when the grace answered it again (once at most).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('refresh_tokens').addColumn('used_by', 'text').execute();
  await db.schema.alterTable('refresh_tokens').addColumn('used_device', 'text').execute();
  await db.schema.alterTable('refresh_tokens').addColumn('grace_used_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('refresh_tokens').dropColumn('grace_used_at').execute();
  await db.schema.alterTable('refresh_tokens').dropColumn('used_device').execute();
  await db.schema.alterTable('refresh_tokens').dropColumn('used_by').execute();
}
