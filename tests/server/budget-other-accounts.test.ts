import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SMS_BUDGET } from '../../server/features/alerts/sms-budget.js';
import { nextIp } from './accounts-helpers.js';
import { lisbonAt, type Owner, subscriberWithContacts } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';

// The number's hourly ceiling for all senders keeps a number from being flooded, but never from
// the owner's own alert: each account's first proven real alert to a number in the hour passes
// it, whatever other accounts sent; beyond that first one the ceiling holds as before.
describe(`other accounts cannot use up a number against the owner's proven alert (${dbLabel})`, () => {
  const t = suiteApp();
  // The alerts' SMS (not the invitations sent as each account added the number).
  const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone && /^EMERG/.test(sms.body));
  const send = (token: string, ip: string, proof: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${token}/alerts/`,
      headers: { 'idempotency-key': randomUUID(), ...proof },
      payload: { mode: 'real', location: lisbonAt(t.app) },
      remoteAddress: ip,
    });
  /** Paid accounts that add `phone` as a contact now and, signed in, send `count` SMS to it between them. */
  const othersFill = async (phone: string, accounts: number, count: number): Promise<Owner[]> => {
    const others = await Promise.all(
      Array.from({ length: accounts }, () => subscriberWithContacts(t.app, 'premium', [['Target', phone]])),
    );
    for (let sent = 0; sent < count; sent += 1) {
      const other = others[sent % accounts] as Owner;
      const res = await send(other.token, nextIp(), other.headers);
      expect(res.json()).toMatchObject({ proven: true, recently_alerted: false, number_busy: false });
    }
    return others;
  };

  it("hands the owner's proven alert to the provider after 4 other paid accounts filled the number's ceiling", async () => {
    const mother = '+351964100001';
    // The owner added their mother a moment ago: not yet "in touch" with the number.
    const owner = await subscriberWithContacts(t.app, 'premium', [['Mãe', mother]]);
    const proof = owner.headers;
    const ip = '198.51.100.61';
    // A stranger holding the owner's link alerts her once...
    expect((await send(owner.token, ip)).json()).toMatchObject({ proven: false, number_busy: false });
    // ...and 4 other accounts send the rest of the hour's 30.
    const others = await othersFill(mother, 4, SMS_BUDGET.perNumber.max - 1);
    await t.app.dispatcher.drain();
    expect(smsTo(mother)).toHaveLength(SMS_BUDGET.perNumber.max);

    // The ceiling still holds everyone beyond their first: an account that already alerted her...
    const [flooder] = others as [Owner];
    expect((await send(flooder.token, nextIp(), flooder.headers)).json()).toMatchObject({
      proven: true,
      number_busy: true,
      deliveries: [{ withheld: true, withheld_reason: 'number_busy' }],
    });
    // ...and the owner's link alone, from the stranger's address.
    expect((await send(owner.token, ip)).json()).toMatchObject({ proven: false, number_busy: true });

    // The owner, with proof, from the same address right after.
    const mine = await send(owner.token, ip, proof);
    expect(mine.statusCode, mine.body).toBe(201);
    expect(mine.json()).toMatchObject({ proven: true, recently_alerted: false, number_busy: false });
    expect(mine.json().deliveries).toEqual([
      { contact_name: 'Mãe', status: expect.stringMatching(/^(queued|sending)$/) },
    ]);
    await t.app.dispatcher.drain();
    const handed = smsTo(mother);
    expect(handed).toHaveLength(SMS_BUDGET.perNumber.max + 1);
    expect(handed.at(-1)?.body).toContain(owner.user.username);

    // Beyond the owner's first in the hour, the ceiling applies to a contact added within it.
    expect((await send(owner.token, ip, proof)).json()).toMatchObject({
      proven: true,
      number_busy: true,
      deliveries: [{ withheld_reason: 'number_busy' }],
    });
  });

  it('lets each further account through the full ceiling once an hour, and no more', async () => {
    const sister = '+351964100002';
    await othersFill(sister, 3, SMS_BUDGET.perNumber.max);
    const late = await Promise.all(
      Array.from({ length: 3 }, () => subscriberWithContacts(t.app, 'premium', [['Irmã', sister]])),
    );
    for (const account of late) {
      const ip = nextIp();
      // Their link alone: held by the ceiling.
      expect((await send(account.token, ip)).json()).toMatchObject({ proven: false, number_busy: true });
      expect((await send(account.token, ip, account.headers)).json()).toMatchObject({
        proven: true,
        number_busy: false,
      });
      expect((await send(account.token, ip, account.headers)).json()).toMatchObject({
        proven: true,
        number_busy: true,
      });
    }
    await t.app.dispatcher.drain();
    expect(smsTo(sister)).toHaveLength(SMS_BUDGET.perNumber.max + late.length);
  });
});
