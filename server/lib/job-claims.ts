import type { Compilable, ExpressionBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';
import { type ClaimArm, claimQuery } from '../db/claim.js';
import { compiledOnce } from '../db/compiled-once.js';
import type { Dialect } from '../db/index.js';
import type { Database, Timer } from '../db/schema.js';

/**
 * The job engine's claims (server/lib/timers.ts): the claim for arms of one shape (null: the kinds
 * that share the engine's batch, `shared`; else one kind), built once (`compiledOnce`): each claim
 * brings only its time, lease, token and limits. A claim built at every call cost the server more
 * than the database spent running it.
 */
export function jobClaims() {
  const claims = new Map<
    string,
    (db: Kysely<Database>, dialect: Dialect, values: Record<string, unknown>) => Promise<Timer[]>
  >();
  return (shape: (string | null)[], shared: string[]) => {
    const key = JSON.stringify([shape, shared]);
    let claim = claims.get(key);
    if (!claim) {
      claim = compiledOnce<Record<string, unknown>, Timer>((qdb, value, qdialect) => {
        const now = value('now');
        const due = (eb: ExpressionBuilder<Database, 'timers'>) =>
          eb.and([
            eb('due_at', '<=', now as number),
            eb('failed_at', 'is', null),
            eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now as number)]),
          ]);
        const arms: ClaimArm<'timers'>[] = shape.map((name, i) => ({
          where: (eb) => eb.and([name === null ? eb('kind', 'in', shared) : eb('kind', '=', name), due(eb)]),
          limit: value(`limit_${i}`) as number,
        }));
        return claimQuery(qdb, qdialect, 'timers', {
          due: arms,
          orderBy: 'due_at',
          set: {
            lease_until: value('leaseUntil') as number,
            lease_token: value('token') as string,
            attempts: sql<number>`attempts + 1`,
          },
          limit: value('total') as number,
        }) as Compilable<Timer>;
      });
      claims.set(key, claim);
    }
    return claim;
  };
}
