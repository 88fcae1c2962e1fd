import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { claimDue, queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { newId } from '../../server/lib/ids.js';
import { alertRow } from './alerts-fixtures.js';
import { createUser, dbKind, dbLabel, suiteApp } from './helper.js';
import { countingBuilds, watchStatements } from './statements-seen.js';

/** A delivery of `alertId` to contact `i` (a name and number of its own under `prefix`), due at `dueAt`. */
function dueDelivery(alertId: string, i: number, now: number, dueAt: number, prefix = '+3519120', name = 'Contact') {
  return {
    ...queuedDelivery({
      alertId,
      recipient: {
        contact_name: `${name} ${String(i).padStart(4, '0')}`,
        phone_number: `${prefix}${String(i).padStart(5, '0')}`,
      },
      body: 'EMERGENCY: test needs help now.',
      now,
    }),
    next_attempt_at: dueAt,
  };
}

// The dispatcher's claim with a long backlog: SMS queued behind a provider that takes them
// ten at a time, and one left `sending` by a dispatcher that died.

describe(`claiming due deliveries from a backlog (${dbLabel})`, () => {
  const t = suiteApp();

  it('takes the oldest due first, whichever way each is due, and nothing else', async () => {
    // Only the claims of this test take these rows: the app's own dispatcher sweeps no more.
    await t.app.dispatcher.stop();
    const { user } = await createUser(t.app);
    const now = t.clock.now();
    const alertId = newId();
    const row = (i: number, dueAt: number) => dueDelivery(alertId, i, now, dueAt);
    const backlog = Array.from({ length: 300 }, (_, i) => row(i, now - 300_000 + i * 1000));
    const abandoned = { ...row(900, now - 600_000), status: 'sending' as const, claimed_until: now - 1 };
    const held = { ...row(901, now - 700_000), status: 'sending' as const, claimed_until: now + 60_000 };
    const later = row(902, now + 60_000);
    await insertAlert(t.app.db, alertRow(user.id, { id: alertId, created_at: now }), [
      ...backlog,
      abandoned,
      held,
      later,
    ]);

    const first = await claimDue(t.app.db, t.app.dialect, { now, leaseMs: 60_000, limit: 5 });
    // The five oldest due, in whatever order the update returns them.
    const oldest = [...first].sort((a, b) => a.next_attempt_at - b.next_attempt_at).map((d) => d.id);
    expect(oldest).toEqual([abandoned.id, ...backlog.slice(0, 4).map((d) => d.id)]);
    expect(first.every((d) => d.status === 'sending' && d.user_id === user.id)).toBe(true);

    let taken = first.length;
    for (let claimed = first.length; claimed > 0; taken += claimed) {
      claimed = (await claimDue(t.app.db, t.app.dialect, { now, leaseMs: 60_000, limit: 50 })).length;
    }
    // Every queued and due row once, the abandoned one; never the one still held, nor the one not yet due.
    expect(taken).toBe(301);
    const left = await t.app.db
      .selectFrom('deliveries')
      .select(['id', 'status'])
      .where('id', 'in', [held.id, later.id])
      .orderBy('contact_name')
      .execute();
    expect(left).toEqual([
      { id: held.id, status: 'sending' },
      { id: later.id, status: 'queued' },
    ]);
  });

  it('builds its statement once: each claim brings only its time, lease and limit', async () => {
    await t.app.dispatcher.stop();
    const { user } = await createUser(t.app);
    const now = t.clock.now();
    const alertId = newId();
    const rows = [-4, -3, -2, -1, 10].map((seconds, i) =>
      dueDelivery(alertId, i, now, now + seconds * 1000, '+3519130'),
    );
    await insertAlert(t.app.db, alertRow(user.id, { id: alertId, created_at: now }), rows);
    // The database as the claim sees it, counting the queries started on it.
    const { db, counted } = countingBuilds(t.app.db, ['selectFrom', 'updateTable', 'with']);
    const first = await claimDue(db, t.app.dialect, { now, leaseMs: 60_000, limit: 1 });
    counted.built = 0;
    const rest = await claimDue(db, t.app.dialect, { now: now + 10_000, leaseMs: 5_000, limit: 10 });
    expect(counted.built).toBe(0);
    expect(first.map((d) => [d.id, Number(d.claimed_until)])).toEqual([[rows[0]?.id, now + 60_000]]);
    // Ten seconds later the one due then is due too; the lease is the one given, from that time.
    expect(rest.map((d) => d.id).sort()).toEqual(
      rows
        .slice(1)
        .map((d) => d.id)
        .sort(),
    );
    expect(rest.map((d) => [Number(d.claimed_until), d.user_id])).toEqual(rest.map(() => [now + 15_000, user.id]));
  });
});

// PostgreSQL's plan of the claim, read with EXPLAIN ANALYZE (SQLite's one UPDATE has no other way
// in), on a database of its own: the planner's statistics are those this test makes.
const describeOnPostgres = dbKind === 'postgres' ? describe : (_name: string, _body: () => void) => undefined;
describeOnPostgres(`the claim's plan with a backlog the statistics have not seen (${dbLabel})`, () => {
  const t = suiteApp();

  it('reads the rows it takes, not the backlog, with statistics taken while the queue was empty', async () => {
    await t.app.dispatcher.stop();
    const { user } = await createUser(t.app);
    const now = t.clock.now();
    const alertId = newId();
    // The planner's statistics as a running server's are before a burst: every delivery sent.
    const history = Array.from({ length: 2000 }, (_, i) => ({
      ...dueDelivery(alertId, i, now, now - 9_000_000 + i * 1000, '+3519150', 'Earlier'),
      status: 'sent' as const,
    }));
    await insertAlert(t.app.db, alertRow(user.id, { id: alertId, created_at: now }), history);
    await sql`analyze deliveries`.execute(t.app.db);
    const burstAlert = newId();
    const backlog = Array.from({ length: 3000 }, (_, i) =>
      dueDelivery(burstAlert, i, now, now - 3_000_000 + i * 1000, '+3519140'),
    );
    await insertAlert(t.app.db, alertRow(user.id, { id: burstAlert, created_at: now }), backlog);
    const watched = watchStatements();
    let claimed: Awaited<ReturnType<typeof claimDue>>;
    try {
      claimed = await claimDue(t.app.db, t.app.dialect, { now, leaseMs: 60_000, limit: 4 });
    } finally {
      watched.stop();
    }
    expect(claimed).toHaveLength(4);
    const claim = watched.seen.find((statement) => statement.sql.includes('for update skip locked'));
    expect(claim).toBeDefined();
    // The same claim once more, as the planner runs it, then rolled back.
    let plan: Record<string, unknown> | undefined;
    const rolledBack = new Error('rolled back');
    await t.app.db
      .transaction()
      .execute(async (trx) => {
        const explained = CompiledQuery.raw(`explain (analyze, format json) ${claim?.sql}`, [
          ...(claim?.parameters ?? []),
        ]);
        const { rows } = await trx.executeQuery<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }>(explained);
        plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
        throw rolledBack;
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
    expect(plan).toBeDefined();
    // How the update finds the rows to write (its outer plan, beside the arms' CTEs): by the few
    // ids the arms took, not by reading the 2,996 other queued rows again.
    const finding = (plan?.Plans as Record<string, unknown>[] | undefined)?.find(
      (node) => node['Parent Relationship'] === 'Outer',
    );
    expect(finding).toBeDefined();
    const rowsRead = (node: Record<string, unknown>): number =>
      Number(node['Actual Rows'] ?? 0) * Number(node['Actual Loops'] ?? 1) +
      ((node.Plans as Record<string, unknown>[] | undefined) ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
    expect(rowsRead(finding as Record<string, unknown>)).toBeLessThan(100);
  });
});
