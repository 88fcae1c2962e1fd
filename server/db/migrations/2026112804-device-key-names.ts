import type { Kysely } from 'kysely';

/**
 * Device keys that can be taken back: each names the device it went to (from its User-Agent,
 * for the owner's list in Setup) and the login that issued it, so logging out there ends it
 * (features/accounts/device-keys.ts). Keys issued before this have no login: only removal,
 * a new link, "log out everywhere" or a password reset end them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('device_keys').addColumn('name', 'text').execute();
  await db.schema
    .alterTable('device_keys')
    .addColumn('session_id', 'text', (c) => c.references('sessions.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('device_keys_session_idx').on('device_keys').column('session_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('device_keys_session_idx').execute();
  await db.schema.alterTable('device_keys').dropColumn('session_id').execute();
  await db.schema.alterTable('device_keys').dropColumn('name').execute();
}
