import type { Kysely } from 'kysely';

/** Orders provider webhook events per subscription, so one that arrives late cannot undo a newer one. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('provider_event_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscriptions').dropColumn('provider_event_at').execute();
}
