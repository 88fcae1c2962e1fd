import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { deleteAccount } from '../../server/features/accounts/delete.js';
import { deleteUser } from '../../server/features/accounts/repository.js';
import { alertsOf, eventually, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, describeOn, suiteApp } from './helper.js';
import { secondConnection } from './second-process.js';

/** What the next alert request runs once its owner has been read, before the alert is stored. */
let beforeStore: (() => Promise<void>) | null = null;

const suite = () =>
  suiteApp({}, (app) => {
    app.addHook('preHandler', async (request) => {
      if (request.method !== 'POST' || !request.url.endsWith('/alerts/') || !beforeStore) return;
      const run = beforeStore;
      beforeStore = null;
      await run();
    });
  });

let n = 0;
const phones = () => [`+35196500${String(++n).padStart(4, '0')}`, `+35196510${String(n).padStart(4, '0')}`];

// An alert request reads its owner and contacts, then stores the alert and its deliveries: an
// account deleted in between is answered as its gone link is, never with a 500.
describe(`an account or contact deleted while an alert is being stored (${dbLabel})`, () => {
  const t = suite();
  const smsTo = (numbers: string[]) => t.app.outbox.sms.filter((sms) => numbers.includes(sms.to));

  it('answers 404 when the account is deleted after its owner was read, storing and sending nothing', async () => {
    const numbers = phones();
    const owner = await ownerWithContacts(t.app, { contacts: numbers.map((p, i) => [`Contact ${i}`, p]) });
    beforeStore = () => deleteAccount(t.app, owner.user.id);
    const res = await postAlert(t.app, owner.token);
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not_found' });
    expect(beforeStore).toBeNull();
    await t.app.dispatcher.drain();
    expect(await alertsOf(t.app, owner.user.id)).toEqual([]);
    expect(smsTo(numbers)).toEqual([]);

    // Another owner's alert right after goes out as always.
    const other = await ownerWithContacts(t.app, { contacts: [['Ana', '+351965999999']] });
    expect((await postAlert(t.app, other.token)).statusCode).toBe(201);
  });

  it('stores and sends the alert when one of its contacts is deleted after the contacts were read', async () => {
    const numbers = phones();
    const owner = await ownerWithContacts(t.app, { contacts: numbers.map((p, i) => [`Contact ${i}`, p]) });
    beforeStore = async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/emergency/contacts/', headers: owner.headers });
      const id = res.json()[0].id as string;
      const removed = await t.app.inject({
        method: 'DELETE',
        url: `/api/emergency/contacts/${id}/`,
        headers: owner.headers,
      });
      expect(removed.statusCode).toBe(204);
    };
    const res = await postAlert(t.app, owner.token);
    expect(res.statusCode, res.body).toBe(201);
    expect(beforeStore).toBeNull();
    // The contacts as they were when the button was pressed.
    expect(res.json().deliveries).toHaveLength(2);
    await t.app.dispatcher.drain();
    expect(smsTo(numbers)).toHaveLength(2);
  });
});

// PostgreSQL's own race: the deletion holds the user's row while the alert's insert waits on its
// foreign key, then commits; the insert fails with 23503, which was answered 500.
describeOn('postgres')(`an account deleted while its alert's insert waits for it (${dbLabel})`, () => {
  const t = suite();

  it('answers 404 to the alert whose insert waited for the deletion', async () => {
    const numbers = phones();
    const owner = await ownerWithContacts(t.app, { contacts: numbers.map((p, i) => [`Contact ${i}`, p]) });
    const other = await secondConnection(t);
    let answer: Promise<LightMyRequestResponse> | undefined;
    try {
      await other.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        const deleter = rows[0]?.pid;
        await deleteUser(trx, owner.user.id);
        answer = postAlert(t.app, owner.token);
        // Commit only once the alert's insert is waiting for this transaction's lock.
        const waiting = () =>
          sql<{
            n: number;
          }>`select count(*)::int as n from pg_stat_activity where ${deleter}::int = any(pg_blocking_pids(pid))`
            .execute(other.db)
            .then((result) => result.rows[0]?.n ?? 0);
        expect(await eventually(waiting, (count) => count > 0)).toBe(1);
      });
      const res = await (answer as Promise<LightMyRequestResponse>);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    } finally {
      await other.close();
    }
    await t.app.dispatcher.drain();
    expect(t.app.outbox.sms.filter((sms) => numbers.includes(sms.to))).toEqual([]);
  });
});
