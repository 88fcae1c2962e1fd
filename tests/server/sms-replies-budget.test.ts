import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SMS_BUDGET } from '../../server/features/alerts/sms-budget.js';
import { nextIp } from './accounts-helpers.js';
import { lisbonAt, type Owner, ownerWithContacts, subscriberWithContacts } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';
import { replySms } from './sms-replies-fixtures.js';

// A number that replied YES to an owner's invitation said itself that it is in touch with that
// owner: no ceiling shared with other accounts withholds that owner's alerts to it.
describe(`a confirmed contact and the SMS ceilings shared with other accounts (${dbLabel})`, () => {
  const t = suiteApp();
  const send = (token: string, ip: string, proof: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/api/emergency/public/${token}/alerts/`,
      headers: { 'idempotency-key': randomUUID(), ...proof },
      payload: { mode: 'real', location: lisbonAt(t.app) },
      remoteAddress: ip,
    });

  it('withholds the owner’s alerts by the number’s hourly ceiling until the contact confirms, never after', async () => {
    const phone = '+351964200001';
    // Accounts that had the number before (never invited it), then the owner who adds it now.
    const others = await Promise.all(
      Array.from({ length: 4 }, () => ownerWithContacts(t.app, { contacts: [['Target', phone]] })),
    );
    const owner = await subscriberWithContacts(t.app, 'premium', [['Mãe', phone]]);
    for (let sent = 0; sent < SMS_BUDGET.perNumber.max; sent += 1) {
      const other = others[sent % others.length] as Owner;
      expect((await send(other.token, nextIp(), other.headers)).json()).toMatchObject({ number_busy: false });
    }
    // The owner's proven first alert in the hour passes the ceiling, as before; a second one and
    // the link alone do not: the contact was added a moment ago.
    const ip = '198.51.100.71';
    expect((await send(owner.token, ip, owner.headers)).json()).toMatchObject({ proven: true, number_busy: false });
    expect((await send(owner.token, ip, owner.headers)).json()).toMatchObject({ proven: true, number_busy: true });
    expect((await send(owner.token, ip)).json()).toMatchObject({ proven: false, number_busy: true });
    // Another number's YES confirms nothing of this contact.
    expect(await replySms(t.app, '+351964200009', 'YES')).toBe('helped');
    expect((await send(owner.token, ip)).json()).toMatchObject({ number_busy: true });

    expect(await replySms(t.app, phone, 'SIM')).toBe('confirmed');
    const linkOnly = await send(owner.token, ip);
    expect(linkOnly.json()).toMatchObject({ proven: false, number_busy: false });
    expect(linkOnly.json().deliveries).toEqual([
      { contact_name: 'Mãe', status: expect.stringMatching(/^(queued|sending)$/) },
    ]);
    expect((await send(owner.token, ip, owner.headers)).json()).toMatchObject({ proven: true, number_busy: false });
    await t.app.dispatcher.drain();
  });
});
