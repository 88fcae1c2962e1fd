import { version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { eventually, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';

// The rows an alert writes by the thousand take ids in time order (UUIDv7): they land on the
// last page of each index rather than anywhere in it, and a commit writes fewer pages.

describe(`the rows an alert writes (${dbLabel})`, () => {
  const t = suiteApp();

  it('take ids in time order: the alert, its deliveries, its escalation job and its SMS usage', async () => {
    const owner = await ownerWithContacts(t.app);
    const answer = await postAlert(t.app, owner.token);
    expect(answer.statusCode).toBe(201);
    const { id } = answer.json() as { id: string };
    await t.app.dispatcher.drain();
    const usage = await eventually(
      () => t.app.db.selectFrom('usage_records').select('id').where('user_id', '=', owner.user.id).execute(),
      (rows) => rows.length >= 2,
    );
    const deliveries = await t.app.db.selectFrom('deliveries').select('id').where('alert_id', '=', id).execute();
    // The escalation's job (the owner's e-mail job, written beside it, may have run and gone already).
    const timers = await t.app.db
      .selectFrom('jobs')
      .select('id')
      .where('subject', '=', id)
      .where('kind', '=', 'escalation')
      .execute();
    expect(deliveries).toHaveLength(2);
    expect(timers).toHaveLength(1);
    const ids = [id, ...deliveries.map((row) => row.id), ...timers.map((row) => row.id), ...usage.map((row) => row.id)];
    expect(ids.map((rowId) => version(rowId))).toEqual(ids.map(() => 7));
    // Written in this order: the alert first, its usage once its SMS were sent.
    const [alertId, ...rest] = ids;
    expect(rest.every((rowId) => rowId.slice(0, 13) >= (alertId as string).slice(0, 13))).toBe(true);
  });
});
