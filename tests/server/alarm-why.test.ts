import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type CheckinOwner, checkinOwner, clockTime, settle, smsTo } from './checkin-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';
import { replySms } from './sms-replies-fixtures.js';

const MINUTE = 60_000;
const ZONE = 'Europe/Lisbon';

/**
 * After the server raised the alarm for a missed daily check-in: "I'm OK today" ends it (the
 * all-clear when asked), the contacts' live page says why and since when, and a contact who
 * answered 1 by SMS is told it was taken and recognised on their own link.
 */
describe(`a missed daily check-in's alarm, read and ended (${dbLabel})`, () => {
  const t = suiteApp();
  const session = async (o: CheckinOwner) => ({
    authorization: `Bearer ${await t.app.tokens.signAccess(o.user.id, o.sessionId)}`,
  });
  /** An owner whose daily check-in was missed: its alert went to each contact; the SMS sent. */
  const missed = async () => {
    const o = await checkinOwner(t.app, { contacts: 2 });
    await t.app.db.updateTable('users').set({ time_zone: ZONE }).where('id', '=', o.user.id).execute();
    const time = clockTime(t.clock.now() + 2 * 3600_000, ZONE);
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/users/me/daily-checkin/',
      headers: await session(o),
      payload: { enabled: true, time, every_days: 1, grace_minutes: 30 },
    });
    expect(put.statusCode, put.body).toBe(200);
    const lastSign = t.clock.now();
    moveTime(t, Date.parse(put.json().next_due_at) - t.clock.now());
    await settle(t.app);
    moveTime(t, 30 * MINUTE);
    await settle(t.app);
    await settle(t.app);
    const alert = await t.app.db
      .selectFrom('alerts')
      .selectAll()
      .where('user_id', '=', o.user.id)
      .where('reason', '=', 'missed_daily')
      .executeTakeFirstOrThrow();
    return { o, alert, lastSign };
  };
  const ok = (o: CheckinOwner, proof: Record<string, string>, body: object) =>
    t.app.inject({ method: 'POST', url: `/api/emergency/public/${o.token}/daily/ok/`, headers: proof, payload: body });
  const live = (publicId: string, key?: string) =>
    t.app.inject({ method: 'GET', url: `/api/live/${publicId}/${key ? `?c=${key}` : ''}` });
  const keyIn = (sms: string) => sms.match(/\?c=([\w-]+)/)?.[1] as string;

  it('"I’m OK today" with the owner’s proof ends the open alert, cancels its calls and, asked to, tells each contact; the link alone ends nothing', async () => {
    const { o, alert } = await missed();
    // The owner's e-mail names what was missed and who was alerted; its button only opens the app.
    const mails = t.app.outbox.emails.filter(
      (mail) => mail.to === o.user.email && /contacts were alerted/.test(mail.subject),
    );
    expect(mails.map((mail) => mail.subject)).toEqual([
      'Alerta: you missed your daily check-in and your contacts were alerted',
    ]);
    const mail = mails[0] as { text: string; html: string };
    expect(mail.text).toContain("You missed today's daily check-in; Contact 0 and Contact 1 were alerted on");
    expect(mail.html).toContain('I&#39;m OK — tell my contacts');
    expect(mail.text).not.toMatch(/not-me|wasn't me|your link/i);
    expect(mail.text).toContain(`\n${t.app.config.APP_URL}/\n`);
    const refused = await ok(o, {}, { notify: true });
    expect(refused.statusCode).toBe(403);
    expect((await live(alert.public_id)).json().state).toBe('active');

    const done = await ok(o, o.proof, { notify: true });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ alerts_ended: 1, all_clear_queued: 2, status: 'waiting' });
    await settle(t.app);
    const allClear = smsTo(t.app, o).filter((sms) => /is safe now/.test(sms.body));
    expect(allClear.map((sms) => sms.to).sort()).toEqual([...o.phones].sort());
    expect((await live(alert.public_id)).json().state).toBe('resolved');
    const row = await t.app.db
      .selectFrom('alerts')
      .select(['resolved_at', 'escalation_status'])
      .where('id', '=', alert.id)
      .executeTakeFirstOrThrow();
    expect(row.resolved_at).not.toBeNull();
    expect(row.escalation_status).toBe('cancelled');
  });

  it('"I’m OK today" without asking to tell the contacts ends the alert and sends no all-clear', async () => {
    const { o, alert } = await missed();
    const before = smsTo(t.app, o).length;
    const done = await ok(o, await session(o), {});
    expect(done.json()).toMatchObject({ alerts_ended: 1, all_clear_queued: 0 });
    await settle(t.app);
    expect(smsTo(t.app, o)).toHaveLength(before);
    expect((await live(alert.public_id)).json().state).toBe('resolved');
  });

  it('"I’m OK today" still ends the missed day’s alert after a link holder sent twenty newer alerts, which stay open', async () => {
    const { o, alert } = await missed();
    moveTime(t, MINUTE);
    for (let i = 0; i < 20; i += 1) {
      const sent = await t.app.inject({
        method: 'POST',
        url: `/api/emergency/public/${o.token}/alerts/`,
        headers: { 'idempotency-key': randomUUID() },
        payload: { mode: 'real', location: null, location_error: 'unavailable' },
        remoteAddress: `127.0.0.${i + 2}`,
      });
      expect(sent.statusCode, sent.body).toBe(201);
      moveTime(t, 1000);
    }
    const done = await ok(o, o.proof, { notify: false });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ alerts_ended: 1 });
    expect((await live(alert.public_id)).json().state).toBe('resolved');
    // What the link raised is the owner's to end, one by one, knowingly: not ended by a day's sign of life.
    const open = await t.app.db
      .selectFrom('alerts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', o.user.id)
      .where('resolved_at', 'is', null)
      .executeTakeFirstOrThrow();
    expect(Number(open.n)).toBe(20);
  });

  it('the live page says why and since when; a contact’s 1 by SMS is taken with one line back, shown as by SMS and recognised on their own link', async () => {
    const { o, alert, lastSign } = await missed();
    const [first, second] = o.phones as [string, string];
    const view = (await live(alert.public_id)).json();
    expect(view).toMatchObject({ state: 'active', reason: 'missed_daily', since: new Date(lastSign).toISOString() });
    expect(view.you).toBeUndefined();
    const firstSms = smsTo(t.app, o).find((sms) => sms.to === first)?.body as string;
    expect(firstSms).toMatch(/Reply 1 if you are on your way\./);

    expect(await replySms(t.app, first, '1')).toBe('on_the_way');
    await settle(t.app);
    const back = smsTo(t.app, o).filter((sms) => sms.to === first && !sms.body.includes('/a/'));
    expect(back.map((sms) => sms.body)).toEqual([
      expect.stringMatching(/^Alerta: answer received\. .+ can see you are on your way\.$/),
    ]);
    // Again: still one answer, and no second line back.
    expect(await replySms(t.app, first, '1')).toBe('on_the_way');
    await settle(t.app);
    expect(smsTo(t.app, o).filter((sms) => sms.to === first && !sms.body.includes('/a/'))).toHaveLength(1);

    const mine = (await live(alert.public_id, keyIn(firstSms))).json();
    expect(mine.responders).toEqual([
      { name: 'Contact 0', created_at: expect.any(String), contact: true, channel: 'sms' },
    ]);
    expect(mine.you).toEqual({ created_at: mine.responders[0].created_at, channel: 'sms' });
    const secondSms = smsTo(t.app, o).find((sms) => sms.to === second)?.body as string;
    expect((await live(alert.public_id, keyIn(secondSms))).json().you).toBeUndefined();
    expect((await live(alert.public_id, 'not a key!')).json().you).toBeUndefined();
    const open = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${o.token}/open-alerts/`,
      headers: o.proof,
    });
    expect(open.json()[0].responders).toEqual([expect.objectContaining({ channel: 'sms' })]);
  });
});
