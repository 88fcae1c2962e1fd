import { describe, expect, it } from 'vitest';
import { nextIp } from './accounts-helpers.js';
import {
  type CheckinOwner,
  checkinCall,
  checkinOwner,
  setPins,
  settle,
  smsTo,
  startCheckin,
} from './checkin-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const GRACE = 5 * MINUTE;
const [PIN, DURESS, WRONG] = ['2468', '1357', '0000'];

// The check-in PIN is asked in addition to the owner's proof, never instead. Wrong PINs are
// counted per owner (anyone holding the link can start check-ins): five within an hour, on any
// of the owner's check-ins, fire the check-in and lock PIN answers until the hour is over.
describe(`check-in PINs, counted per owner (${dbLabel})`, () => {
  const t = suiteApp();
  type Holder = CheckinOwner;
  /** An owner with a check-in PIN and a duress PIN, and a device key. */
  const owner = async (language: 'pt' | 'en' = 'en'): Promise<Holder> => {
    const o = await checkinOwner(t.app, { language });
    await setPins(t.app, o, PIN, DURESS);
    return o;
  };
  const started = async (o: Holder, seconds = 1800) => {
    const res = await startCheckin(t.app, o.token, { body: { duration_seconds: seconds }, ip: nextIp() });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const status = async (id: string) =>
    (await t.app.db.selectFrom('checkins').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const sms = (o: Holder) => smsTo(t.app, o);
  const settled = () => settle(t.app);
  const tries = async (o: Holder) =>
    (
      await t.app.db
        .selectFrom('checkin_pin_tries')
        .select('wrong_pins')
        .where('user_id', '=', o.user.id)
        .executeTakeFirst()
    )?.wrong_pins;

  it("a stranger's PIN guesses are refused before the PIN is read and count for nothing; the owner's PIN ends it from the same address", async () => {
    const o = await owner();
    const id = await started(o);
    const ip = nextIp();
    for (let i = 0; i < 10; i += 1) {
      const guess = await checkinCall(t.app, o.token, id, 'done', { payload: { pin: String(1000 + i) }, ip });
      expect(guess.statusCode).toBe(403);
      expect(guess.json().code).toBe('owner_proof_required');
    }
    expect(await tries(o)).toBeUndefined();
    // Proof alone is not enough when a PIN is set.
    const noPin = await checkinCall(t.app, o.token, id, 'done', { proof: o.proof, ip });
    expect(noPin.json().code).toBe('wrong_pin');
    const done = await checkinCall(t.app, o.token, id, 'done', { payload: { pin: PIN }, proof: o.proof, ip });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toEqual({ status: 'done' });
  });

  it('five wrong PINs within an hour across check-ins fire the check-in, lock PIN answers for the rest of the hour, and mail the owner once', async () => {
    const o = await owner('pt');
    const ip = nextIp();
    const answer = (id: string, pin: string, action: 'done' | 'extend' = 'done', proof: object = o.proof) =>
      checkinCall(t.app, o.token, id, action, {
        payload: { pin, ...(action === 'extend' ? { seconds: 900 } : {}) },
        proof,
        ip,
      });
    const lockStarted = t.clock.now();
    // Two wrong PINs on a first check-in, which then fires as its time runs out.
    const first = await started(o, 60);
    for (let i = 0; i < 2; i += 1) expect((await answer(first, WRONG)).json().code).toBe('wrong_pin');
    moveTime(t, MINUTE + GRACE);
    await settled();
    await settled();
    expect(await status(first)).toBe('fired');
    expect(sms(o)).toHaveLength(1);
    // Two more on a second one; the fifth of the hour fires it and locks the PINs.
    const second = await started(o);
    expect((await answer(second, WRONG, 'extend')).json().code).toBe('wrong_pin');
    expect((await answer(second, WRONG)).json().code).toBe('wrong_pin');
    const fifth = await answer(second, WRONG);
    expect(fifth.statusCode).toBe(403);
    expect(fifth.json().code).toBe('pin_locked');
    expect(Number(fifth.headers['retry-after'])).toBe((lockStarted + HOUR - t.clock.now()) / 1000);
    await settled();
    await settled();
    expect(await status(second)).toBe('fired');
    expect(sms(o)).toHaveLength(2);
    expect(await tries(o)).toBe(5);

    // A third check-in in the same hour: no PIN is read, not even the right one or the duress PIN.
    const third = await started(o, 7200);
    const right = await answer(third, PIN);
    const duress = await answer(third, DURESS);
    expect(right.json().code).toBe('pin_locked');
    expect(duress.statusCode).toBe(right.statusCode);
    expect(duress.body).toBe(right.body);
    expect((await answer(third, PIN, 'extend')).json().code).toBe('pin_locked');
    // The proof is checked first: the link alone is told so, not about the lock.
    expect((await answer(third, PIN, 'done', {})).json().code).toBe('owner_proof_required');
    expect(await tries(o)).toBe(5);
    expect(await status(third)).toBe('running');

    await settled();
    const mails = t.app.outbox.emails.filter((mail) => mail.to === o.user.email && /PIN/.test(mail.subject));
    expect(mails.map((mail) => mail.subject)).toEqual(['Alerta: PIN do check-in bloqueado']);
    expect(mails[0]?.text).toContain('5 PINs errados');
    expect(mails[0]?.text).toContain(`${t.config.APP_URL}/setup`);

    // The hour is over: the owner's PIN, from the same address, ends the check-in; no second mail.
    moveTime(t, lockStarted + HOUR - t.clock.now());
    const ended = await answer(third, PIN);
    expect(ended.statusCode, ended.body).toBe(200);
    await settled();
    expect(t.app.outbox.emails.filter((mail) => mail.to === o.user.email && /PIN/.test(mail.subject))).toHaveLength(1);
    expect(await status(third)).toBe('done');
    const alerts = await t.app.db.selectFrom('alerts').select('reason').where('user_id', '=', o.user.id).execute();
    expect(alerts.map((alert) => alert.reason)).toEqual(['missed_checkin', 'missed_checkin']);
  });

  it('"extend" needs the PIN too; the duress PIN extends exactly as the right one and sends the duress alert', async () => {
    const [calm, forced] = [await owner(), await owner()];
    const [calmId, forcedId] = [await started(calm), await started(forced)];
    const ip = nextIp();
    const extend = (o: Holder, id: string, pin?: string) =>
      checkinCall(t.app, o.token, id, 'extend', {
        payload: { seconds: 900, ...(pin ? { pin } : {}) },
        proof: o.proof,
        ip,
      });
    expect((await extend(calm, calmId)).json().code).toBe('wrong_pin');
    const ok = await extend(calm, calmId, PIN);
    const underDuress = await extend(forced, forcedId, DURESS);
    expect(underDuress.statusCode).toBe(200);
    expect(underDuress.statusCode).toBe(ok.statusCode);
    expect(underDuress.headers['content-type']).toBe(ok.headers['content-type']);
    expect(Object.keys(underDuress.json()).sort()).toEqual(Object.keys(ok.json()).sort());
    expect([ok.json().status, underDuress.json().status]).toEqual(['running', 'running']);
    expect(underDuress.json().due_at).toBe(ok.json().due_at);
    await settled();
    expect(sms(calm)).toEqual([]);
    expect(
      sms(forced)
        .map((sms) => sms.body)
        .join(),
    ).toContain('may be acting under duress');
    expect(await status(forcedId)).toBe('running');
    // Ended later with the right PIN: the duress alert is not sent again.
    expect(
      (await checkinCall(t.app, forced.token, forcedId, 'done', { payload: { pin: PIN }, proof: forced.proof, ip }))
        .statusCode,
    ).toBe(200);
    await settled();
    expect(sms(forced)).toHaveLength(1);
  });
});
