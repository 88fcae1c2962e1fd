import { CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { insertAlert } from '../../server/features/alerts/repository.js';
import { firstRealAlert } from '../../server/features/billing/repository.js';
import { insertSmsUsage } from '../../server/features/billing/usage.js';
import { newId } from '../../server/lib/ids.js';
import { alertRow, ownerWithContacts } from './alerts-fixtures.js';
import { dbKind, dbLabel, suiteApp } from './helper.js';
import { watchStatements } from './statements-seen.js';

// Each SMS's usage row asks which alert was its user's first real one (its SMS are not billed).
// It is one step of an index whatever the user's history: ordered by (created_at, id) over only
// (user_id, created_at), PostgreSQL read and sorted every alert of the user for each SMS, so an
// owner with thousands of alerts (the bench's POST) paid for all of them at every send.
describe(`the user's first real alert, for billing (${dbLabel})`, () => {
  const t = suiteApp();

  it('is the earliest real alert, lowest id first, read from one index without a sort', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [] });
    const start = t.clock.now();
    const test = alertRow(owner.user.id, { mode: 'test', created_at: start - 10 });
    const [later, first] = [
      alertRow(owner.user.id, { id: 'zz-later', created_at: start }),
      alertRow(owner.user.id, { id: 'aa-first', created_at: start }),
    ];
    await insertAlert(t.app.db, test, []);
    await insertAlert(t.app.db, later, []);
    await insertAlert(t.app.db, first, []);
    for (let i = 1; i <= 200; i += 1) {
      await insertAlert(t.app.db, alertRow(owner.user.id, { created_at: start + i }), []);
    }
    expect(await firstRealAlert(t.app.db, owner.user.id).execute()).toEqual([{ id: 'aa-first' }]);

    const { sql: text, parameters } = firstRealAlert(t.app.db, owner.user.id).compile();
    if (dbKind === 'postgres') {
      // EXECUTE takes its values written out: a prepared statement's are not bound to it.
      const values = parameters.map((value) => (typeof value === 'string' ? `'${value}'` : String(value)));
      // Prepared, with the plan a prepared statement ends up with, whose estimates know no user.
      const shown = await t.app.db.connection().execute(async (db) => {
        await sql.raw(`prepare first_real as ${text}`).execute(db);
        await sql`set plan_cache_mode = force_generic_plan`.execute(db);
        try {
          const plan = await sql
            .raw(`explain (analyze, format json) execute first_real(${values.join(', ')})`)
            .execute(db);
          return JSON.stringify(plan.rows);
        } finally {
          await sql`reset plan_cache_mode`.execute(db);
          await sql`deallocate first_real`.execute(db);
        }
      });
      expect(shown).toContain('alerts_user_mode_created_idx');
      expect(shown).not.toContain('"Node Type":"Sort"');
      expect(shown).toMatch(/"Actual Rows":1[,}]/);
    } else {
      const plan = await t.app.db.executeQuery(CompiledQuery.raw(`explain query plan ${text}`, [...parameters]));
      const shown = JSON.stringify(plan.rows);
      expect(shown).toContain('alerts_user_mode_created_idx');
      expect(shown).not.toContain('TEMP B-TREE');
    }
  });

  it('is read once per user for a batch of usage rows, each row billed by its own alert', async () => {
    const [first, second] = [await ownerWithContacts(t.app), await ownerWithContacts(t.app)];
    const start = t.clock.now();
    const alerts = {
      firstOwnerFirst: alertRow(first.user.id, { created_at: start }),
      firstOwnerLater: alertRow(first.user.id, { created_at: start + 1 }),
      secondOwnerFirst: alertRow(second.user.id, { created_at: start + 2 }),
    };
    for (const alert of Object.values(alerts)) await insertAlert(t.app.db, alert, []);
    // Two SMS of each alert, as the dispatcher's sends that finished together.
    const usages = Object.values(alerts).flatMap((alert) =>
      [0, 1].map(() => ({ userId: alert.user_id, alertId: alert.id, deliveryId: newId(), now: start + 10 })),
    );
    const statements = watchStatements();
    let written: Awaited<ReturnType<typeof insertSmsUsage>>;
    try {
      written = await insertSmsUsage(t.app.db, usages);
    } finally {
      statements.stop();
    }
    const billable = new Map(written.map((row) => [row.deliveryId, row.billable]));
    expect(usages.map((usage) => [usage.alertId, billable.get(usage.deliveryId)])).toEqual([
      [alerts.firstOwnerFirst.id, false],
      [alerts.firstOwnerFirst.id, false],
      [alerts.firstOwnerLater.id, true],
      [alerts.firstOwnerLater.id, true],
      [alerts.secondOwnerFirst.id, false],
      [alerts.secondOwnerFirst.id, false],
    ]);
    // One read of the alerts per owner, none inside the insert of the six rows.
    const readingAlerts = statements.seen.filter((s) => /from "?alerts"?/.test(s.sql));
    expect(readingAlerts).toHaveLength(2);
    expect(statements.seen.filter((s) => /insert into "?usage_records"?/.test(s.sql))).toHaveLength(1);
    expect(readingAlerts.every((s) => !/insert into/.test(s.sql))).toBe(true);
  });
});
