import type { Kysely } from 'kysely';

/**
 * What contacts see about the owner: the name alerts, the live page and SMS carry (null:
 * the username), and the IANA time zone SMS times are written in (null: UTC).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('display_name', 'text').execute();
  await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('time_zone').execute();
  await db.schema.alterTable('users').dropColumn('display_name').execute();
}
