import { describe, expect, it } from 'vitest';
import { MAIL_BURST } from '../../server/features/accounts/mail-bursts.js';
import { nextIp } from './accounts-helpers.js';
import { checkinCall, checkinOwner, settle, startCheckin } from './checkin-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';

const MINUTE = 60_000;

// Anyone holding the link can start check-ins, and each one that falls due reminds the owner by
// e-mail: the reminders follow the receipts' rule, one per burst (the others told in one
// summary) and a daily cap per address.
describe(`check-in reminder e-mails, bounded like receipts (${dbLabel})`, () => {
  const t = suiteApp();

  it('mails the first reminder of a burst, one summary of the rest, and at most 20 a day', async () => {
    const o = await checkinOwner(t.app);
    const { proof } = o;
    const ip = nextIp();
    // The outbox keeps the newest first: these read oldest first.
    const mails = () =>
      t.app.outbox.emails.filter((mail) => mail.to === o.user.email && /check-in|OK\?/.test(mail.subject)).reverse();
    /** A check-in started from the link falls due and reminds; the owner then ends it. */
    const overdue = async () => {
      const started = await startCheckin(t.app, o.token, { body: { duration_seconds: 60 }, ip });
      expect(started.statusCode, started.body).toBe(201);
      moveTime(t, MINUTE);
      await settle(t.app);
      const done = await checkinCall(t.app, o.token, started.json().id, 'done', { proof, ip });
      expect(done.statusCode, done.body).toBe(200);
    };

    await overdue();
    expect(mails().map((mail) => mail.subject)).toEqual(['Alerta: are you OK?']);
    // Two more within the spacing: gathered, not mailed.
    await overdue();
    await overdue();
    expect(mails()).toHaveLength(1);
    moveTime(t, MAIL_BURST.spacingMs);
    await settle(t.app);
    expect(mails().map((mail) => mail.subject)).toEqual(['Alerta: are you OK?', 'Alerta: more check-ins were overdue']);
    expect(mails()[1]?.text).toContain('2 more check-ins were overdue since');
    expect(mails()[1]?.text).toContain(`/public/${o.token}/#checkin`);

    // One every 11 minutes for a few hours: never more than the day's cap.
    for (let i = 0; i < MAIL_BURST.perDay + 5; i += 1) {
      moveTime(t, MAIL_BURST.spacingMs);
      await overdue();
    }
    await settle(t.app);
    expect(mails()).toHaveLength(MAIL_BURST.perDay);
  });
});
