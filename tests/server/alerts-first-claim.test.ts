import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryStatus } from '../../server/db/schema.js';
import { eventually, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { buildTestApp, dbKind, dbLabel, type TestApp } from './helper.js';

// When a new alert's SMS are first taken by the dispatcher. On SQLite the claim is queued right
// behind the alert in the same grouped commit (server/db/grouped-transactions.ts): by the time
// the answer leaves, every SMS is already taken (sending, or sent). On PostgreSQL the claim
// follows the commit, and the SMS still go once each.

describe(`a new alert's first claim (${dbLabel})`, () => {
  let t: TestApp;
  /** The statuses of the alert's deliveries as its answer was about to be sent. */
  const atAnswer = new Map<string, DeliveryStatus[]>();
  beforeAll(async () => {
    t = await buildTestApp({}, (app) => {
      app.addHook('onSend', async (request, reply, payload) => {
        if (request.method !== 'POST' || reply.statusCode !== 201) return payload;
        const { id } = JSON.parse(String(payload)) as { id: string };
        const rows = await app.db.selectFrom('deliveries').select('status').where('alert_id', '=', id).execute();
        atAnswer.set(id, rows.map((row) => row.status).sort());
        return payload;
      });
    });
  });
  afterAll(async () => {
    await t.app.dispatcher.drain();
    await t.close();
  });

  it(
    dbKind === 'postgres'
      ? 'claims its SMS right after the alert commits, each sent once'
      : 'claims its SMS in the alert’s own commit: none is still queued when the answer leaves',
    async () => {
      const owner = await ownerWithContacts(t.app);
      const response = await postAlert(t.app, owner.token);
      expect(response.statusCode).toBe(201);
      const { id } = response.json<{ id: string }>();
      const statuses = atAnswer.get(id);
      expect(statuses).toHaveLength(2);
      if (dbKind !== 'postgres') expect(statuses?.filter((status) => status === 'queued')).toEqual([]);
      const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone);
      const both = () => smsTo('+351912345678').length + smsTo('+351913456789').length;
      await eventually(
        async () => both(),
        (count) => count >= 2,
      );
      await t.app.dispatcher.drain();
      expect(smsTo('+351912345678')).toHaveLength(1);
      expect(smsTo('+351913456789')).toHaveLength(1);
    },
  );
});
