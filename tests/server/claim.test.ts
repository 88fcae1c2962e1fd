import { describe, expect, it } from 'vitest';
import { claimDue, queuedDelivery } from '../../server/features/alerts/deliveries.js';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { newId } from '../../server/lib/ids.js';
import { alertRow } from './alerts-fixtures.js';
import { createUser, dbLabel, suiteApp } from './helper.js';
import { countingBuilds } from './statements-seen.js';

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
    const row = (i: number, dueAt: number) => ({
      ...queuedDelivery({
        alertId,
        recipient: {
          contact_name: `Contact ${String(i).padStart(3, '0')}`,
          phone_number: `+3519120${String(i).padStart(5, '0')}`,
        },
        body: 'EMERGENCY: test needs help now.',
        now,
      }),
      next_attempt_at: dueAt,
    });
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
    const rows = [-4, -3, -2, -1, 10].map((seconds, i) => ({
      ...queuedDelivery({
        alertId,
        recipient: { contact_name: `Contact ${i}`, phone_number: `+35191300000${i}` },
        body: 'EMERGENCY: test needs help now.',
        now,
      }),
      next_attempt_at: now + seconds * 1000,
    }));
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
