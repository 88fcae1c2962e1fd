import type { Migration } from 'kysely';
import * as initial from './2026112201-initial.js';

/** Every migration, by name; names sort in the order they run. Add new ones here. */
export const migrations: Record<string, Migration> = {
  '2026112201-initial': initial,
};
