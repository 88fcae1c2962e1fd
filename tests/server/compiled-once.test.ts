import { describe, expect, it } from 'vitest';
import { compiledOnce } from '../../server/db/compiled-once.js';
import { createUser, dbLabel, suiteApp } from './helper.js';
import { countingQueries } from './statements-seen.js';

describe(`a query compiled once (${dbLabel})`, () => {
  const t = suiteApp();

  it('runs with each call’s own values, the same text every time', async () => {
    const [ana, rui] = [await createUser(t.app), await createUser(t.app)];
    let built = 0;
    const byUsername = compiledOnce<{ username: string; after: number }, { id: string }>((db, value) => {
      built += 1;
      return db
        .selectFrom('users')
        .select('id')
        .where('username', '=', value('username'))
        .where('created_at', '>', value('after'));
    });
    const run = (username: string) => byUsername(t.app.db, t.app.dialect, { username, after: 0 });
    expect(await run(ana.user.username)).toEqual([{ id: ana.user.id }]);
    expect(await run(rui.user.username)).toEqual([{ id: rui.user.id }]);
    expect(await byUsername(t.app.db, t.app.dialect, { username: rui.user.username, after: 9e15 })).toEqual([]);
    expect(await run('nobody')).toEqual([]);
    expect(built).toBe(1);
  });

  it('is built again for each run on a database with plugins, which see every query', async () => {
    const user = await createUser(t.app);
    let built = 0;
    const byId = compiledOnce<{ id: string }, { id: string }>((db, value) => {
      built += 1;
      return db.selectFrom('users').select('id').where('id', '=', value('id'));
    });
    expect(await byId(t.app.db, t.app.dialect, { id: user.user.id })).toEqual([{ id: user.user.id }]);
    const { db: watched, counted } = countingQueries(t.app.db);
    expect(await byId(watched, t.app.dialect, { id: user.user.id })).toEqual([{ id: user.user.id }]);
    expect(await byId(watched, t.app.dialect, { id: 'nobody' })).toEqual([]);
    expect(counted.seen).toBe(2);
    expect(await byId(t.app.db, t.app.dialect, { id: user.user.id })).toEqual([{ id: user.user.id }]);
    expect(built).toBe(3);
  });

  it('refuses a build whose named value is not sent as a parameter', async () => {
    const lost = compiledOnce<{ id: string }, { id: string }>((db, value) => {
      value('id');
      return db.selectFrom('users').select('id').limit(1);
    });
    await expect(lost(t.app.db, t.app.dialect, { id: 'x' })).rejects.toThrow('id not sent as a parameter');
  });
});
