import { describe, expect, it } from 'vitest';
import { HELP_MESSAGE } from '../../common/sms-text-replies.js';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { createUser, dbLabel, moveTime, OUTBOX_KEY, suiteApp } from './helper.js';
import { addContact, contactStates, replySms, smsTo } from './sms-replies-fixtures.js';
import { watchStatements } from './statements-seen.js';

const HOUR = 3600_000;

describe(`SMS replies: YES, STOP and START, help (${dbLabel})`, () => {
  const t = suiteApp();
  let n = 0;
  const fresh = () => {
    n += 1;
    return `+35196200${String(n).padStart(4, '0')}`;
  };
  const subscriber = async () => {
    const owner = await createUser(t.app);
    await activateSubscription(t.app.db, { userId: owner.user.id, plan: 'premium', now: t.clock.now() });
    return owner;
  };
  const deliveriesOf = (alertId: string) =>
    t.app.db
      .selectFrom('deliveries')
      .select(['phone_number', 'status'])
      .where('alert_id', '=', alertId)
      .orderBy('contact_name')
      .execute();

  it('YES, SIM or OK, any case and accents, confirms the invited contact; a number never invited gets the help text', async () => {
    const owner = await subscriber();
    const [ana, rui, eva] = [fresh(), fresh(), fresh()];
    for (const [name, phone] of [
      ['Ana', ana],
      ['Rui', rui],
      ['Eva', eva],
    ] as const) {
      await addContact(t.app, owner.headers, name, phone);
    }
    expect(await replySms(t.app, ana, 'Sím!')).toBe('confirmed');
    expect(await replySms(t.app, rui, 'yes.')).toBe('confirmed');
    expect(await replySms(t.app, eva, 'ok')).toBe('confirmed');
    expect(await contactStates(t.app, owner.headers)).toEqual({
      [ana]: 'confirmed',
      [rui]: 'confirmed',
      [eva]: 'confirmed',
    });

    const stranger = fresh();
    expect(await replySms(t.app, stranger, 'YES')).toBe('helped');
    expect(await smsTo(t.app, stranger)).toEqual([HELP_MESSAGE]);
  });

  it('a YES confirms the invitation the number got last, not every account that invited it', async () => {
    const phone = fresh();
    const earlier = await subscriber();
    const later = await subscriber();
    await addContact(t.app, earlier.headers, 'Ana', phone);
    t.clock.advance(1000);
    await addContact(t.app, later.headers, 'Ana', phone);
    expect(await replySms(t.app, phone, 'YES')).toBe('confirmed');
    expect(await contactStates(t.app, later.headers)).toEqual({ [phone]: 'confirmed' });
    expect(await contactStates(t.app, earlier.headers)).toEqual({ [phone]: 'invited' });
  });

  it('STOP: the number gets nothing from any account, recorded opted_out and unbilled, until START', async () => {
    const phone = fresh();
    const other = fresh();
    const first = await ownerWithContacts(t.app, {
      contacts: [
        ['Ana', phone],
        ['Rui', other],
      ],
    });
    const second = await ownerWithContacts(t.app, { contacts: [['Ana', phone]] });
    expect(await replySms(t.app, phone, 'STOP')).toBe('opted_out');
    // The owners' e-mails about that STOP go first: the statements watched below are the alert's alone.
    await t.app.jobs.runDue();

    const watch = watchStatements();
    let alert: { id: string; deliveries: unknown[] };
    try {
      alert = (await postAlert(t.app, first.token)).json();
    } finally {
      watch.stop();
    }
    expect(alert.deliveries).toContainEqual({ contact_name: 'Ana', status: 'failed', opted_out: true });
    // The alert's transaction reads who said STOP with the SMS budgets' counts, in one statement.
    const stops = watch.seen.filter((s) => s.sql.includes('"sms_opt_outs"'));
    expect(stops).toHaveLength(1);
    expect(stops[0]?.sql).toContain('from "deliveries"');
    expect(alert.deliveries).toHaveLength(2);
    const fromSecond = (await postAlert(t.app, second.token)).json();
    await t.app.dispatcher.drain();
    // Sent, or already delivered: the dev outbox reports delivery on the real clock, 300 ms later.
    const gone = (status: string) => (status === 'delivered' ? 'sent' : status);
    expect((await deliveriesOf(alert.id)).map((d) => gone(d.status))).toEqual(['opted_out', 'sent']);
    expect((await deliveriesOf(fromSecond.id)).map((d) => d.status)).toEqual(['opted_out']);
    expect(await smsTo(t.app, phone)).toEqual([]);
    const billed = await t.app.db
      .selectFrom('usage_records')
      .select('user_id')
      .where('user_id', 'in', [first.user.id, second.user.id])
      .execute();
    expect(billed.map((row) => row.user_id)).toEqual([first.user.id]);
    // The owner's page says it for that contact.
    const shown = await t.app.inject({
      method: 'GET',
      url: `/api/emergency/public/${first.token}/alerts/${alert.id}/`,
    });
    expect(shown.json().deliveries).toContainEqual({ contact_name: 'Ana', status: 'failed', opted_out: true });
    // Anything but START is not answered while opted out.
    expect(await replySms(t.app, phone, 'hello?')).toBe('ignored');
    expect(await smsTo(t.app, phone)).toEqual([]);

    expect(await replySms(t.app, phone, 'Iniciar')).toBe('opted_in');
    moveTime(t, 11 * 60_000);
    const after = (await postAlert(t.app, second.token)).json();
    await t.app.dispatcher.drain();
    expect((await deliveriesOf(after.id)).map((d) => gone(d.status))).toEqual(['sent']);
    // Its own alert SMS (the earlier alerts' escalation may follow, now that it is back).
    expect((await smsTo(t.app, phone)).filter((body) => body.startsWith('EMERGENCY:'))).toHaveLength(1);
  });

  it('takes the full-width and other compatibility forms of the keywords as the words: ＳＴＯＰ opts out, ＳＴＡＲＴ restarts', async () => {
    const phone = fresh();
    const opted = () =>
      t.app.db.selectFrom('sms_opt_outs').select('source').where('phone_number', '=', phone).execute();
    expect(await replySms(t.app, phone, 'ＳＴＯＰ')).toBe('opted_out');
    expect(await opted()).toEqual([{ source: 'reply' }]);
    expect(await replySms(t.app, phone, 'ｓｔａｒｔ')).toBe('opted_in');
    expect(await opted()).toEqual([]);
    expect(await replySms(t.app, phone, 'ＰＡＲＡＲ！')).toBe('opted_out');
    expect(await smsTo(t.app, phone)).toEqual([]);
  });

  it('answers a reply it does not understand with one short help SMS at most once an hour', async () => {
    const phone = fresh();
    expect(await replySms(t.app, phone, 'who is this?')).toBe('helped');
    expect(await replySms(t.app, phone, 'hello??')).toBe('ignored');
    expect(await smsTo(t.app, phone)).toEqual([HELP_MESSAGE]);
    moveTime(t, HOUR + 1);
    expect(await replySms(t.app, phone, 'hello??')).toBe('helped');
    expect(await smsTo(t.app, phone)).toEqual([HELP_MESSAGE, HELP_MESSAGE]);
  });

  it('takes a dev outbox reply only with the outbox key, from this machine, without proxy headers', async () => {
    const phone = fresh();
    const post = (url: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url, headers, payload: { from: phone, body: 'STOP' } });
    expect((await post('/dev/outbox/sms/reply/')).statusCode).toBe(404);
    expect((await post('/dev/outbox/sms/reply/?key=wrong')).statusCode).toBe(404);
    expect(
      (await post(`/dev/outbox/sms/reply/?key=${OUTBOX_KEY}`, { 'x-forwarded-for': '203.0.113.9' })).statusCode,
    ).toBe(404);
    const opted = () =>
      t.app.db.selectFrom('sms_opt_outs').select('phone_number').where('phone_number', '=', phone).execute();
    expect(await opted()).toEqual([]);
    expect(await replySms(t.app, phone, 'STOP')).toBe('opted_out');
    expect(await opted()).toEqual([{ phone_number: phone }]);
  });

  it('does not retry an alert SMS to a number that replied STOP after its first attempt failed', async () => {
    const phone = fresh();
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', phone]] });
    t.sms.failNext(1);
    const alert = (await postAlert(t.app, owner.token)).json();
    await t.app.dispatcher.drain();
    expect((await deliveriesOf(alert.id)).map((d) => d.status)).toEqual(['queued']);
    expect(await replySms(t.app, phone, 'STOP')).toBe('opted_out');
    moveTime(t, 60_000);
    await t.app.dispatcher.drain();
    expect((await deliveriesOf(alert.id)).map((d) => d.status)).toEqual(['opted_out']);
    expect(await smsTo(t.app, phone)).toEqual([]);
  });
});
