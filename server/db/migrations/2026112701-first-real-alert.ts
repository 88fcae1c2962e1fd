import type { Kysely } from 'kysely';

/**
 * The user's first real alert, whose SMS are not billed (features/billing/repository.ts), found
 * from this index in one step: ordered by (created_at, id) within the user's real alerts. With
 * only (user_id, created_at) every SMS's usage row read and sorted all of its user's alerts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('alerts_user_mode_created_idx')
    .on('alerts')
    .columns(['user_id', 'mode', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('alerts_user_mode_created_idx').execute();
}
