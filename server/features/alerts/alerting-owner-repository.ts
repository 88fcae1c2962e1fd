import type { ExpressionBuilder, RawBuilder } from 'kysely';
import { jsonArrayFrom as postgresArray } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteArray } from 'kysely/helpers/sqlite';
import { compiledOnce } from '../../db/compiled-once.js';
import type { Dialect } from '../../db/index.js';
import type { Contact, ContactsTable, Database, Db, Subscription, SubscriptionsTable, User } from '../../db/schema.js';

/** Every column of a table, the compiler checking that none is left out (SQLite's JSON needs them named). */
const allColumns =
  <T>() =>
  <const C extends readonly (keyof T & string)[]>(
    ...columns: C & ([Exclude<keyof T, C[number]>] extends [never] ? unknown : never)
  ) =>
    columns;

const CONTACT_COLUMNS = allColumns<ContactsTable>()(
  'id',
  'user_id',
  'name',
  'phone_number',
  'relationship',
  'created_at',
  'priority',
  'invited_at',
  'confirmed_at',
);
const SUBSCRIPTION_COLUMNS = allColumns<SubscriptionsTable>()(
  'id',
  'user_id',
  'provider',
  'provider_customer_id',
  'provider_subscription_id',
  'plan',
  'status',
  'trial_start',
  'trial_end',
  'current_period_end',
  'cancel_at_period_end',
  'created_at',
  'updated_at',
  'provider_event_at',
);

/** Rows of a subquery as one JSON array, in the subquery's order, on either database. */
function rowsOf(dialect: Dialect, query: Parameters<typeof sqliteArray>[0]): RawBuilder<unknown> {
  return dialect === 'postgres' ? postgresArray(query) : sqliteArray(query);
}

/** The owner read's row: the user's columns, the two JSON arrays and the replayed alert's id. */
type OwnerRow = User & { subscriptions: unknown; contacts: unknown; replay_id: string | null };

/** SQLite hands JSON over as text, PostgreSQL parsed. */
const parsed = <T>(value: unknown): T[] => (typeof value === 'string' ? JSON.parse(value) : value) as T[];

/** The owner by token with their subscriptions, their contacts and the id of the alert the key made. */
const ownerRead = compiledOnce<{ token: string; key: string }, OwnerRow>((db, value, dialect) =>
  db
    .selectFrom('users')
    .selectAll('users')
    .select((eb: ExpressionBuilder<Database, 'users'>) => [
      rowsOf(
        dialect,
        eb
          .selectFrom('subscriptions')
          .select(SUBSCRIPTION_COLUMNS)
          .whereRef('subscriptions.user_id', '=', 'users.id')
          .orderBy('subscriptions.created_at', 'desc'),
      ).as('subscriptions'),
      rowsOf(
        dialect,
        eb
          .selectFrom('contacts')
          .select(CONTACT_COLUMNS)
          .whereRef('contacts.user_id', '=', 'users.id')
          .orderBy('contacts.priority', 'asc')
          .orderBy('contacts.created_at', 'asc')
          .orderBy('contacts.id', 'asc'),
      ).as('contacts'),
      eb
        .selectFrom('alerts')
        .select('alerts.id')
        .whereRef('alerts.user_id', '=', 'users.id')
        .where('alerts.idempotency_key', '=', value('key'))
        .as('replay_id'),
    ])
    .where('users.token', '=', value('token')),
);

/**
 * The owner of `token` with their subscriptions (newest first), their contacts in alerting order
 * and the id of the alert `key` already made, read in ONE statement (the alert route's first
 * read under load); undefined for an unknown token.
 */
export async function ownerWithAlerting(db: Db, dialect: Dialect, token: string, key: string) {
  const [row] = await ownerRead(db, dialect, { token, key });
  if (!row) return undefined;
  const { subscriptions, contacts, replay_id, ...user } = row;
  return {
    user,
    subscriptions: parsed<Subscription>(subscriptions),
    contacts: parsed<Contact>(contacts),
    replayId: replay_id,
  };
}
