import { describe, expect, it } from 'vitest';
import { CHECKIN_WRONG_PINS } from '../../common/constants.js';
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
import { dbLabel, suiteApp } from './helper.js';

const [PIN, DURESS, WRONG] = ['2468', '1357', '0000'];

// Each PIN answer takes its place in the owner's count before its hash is checked: however many
// arrive at once, from however many addresses, at most five are read in the hour, and the rest
// are refused unread. A right (or duress) PIN gives its place back.
describe(`check-in PINs answered at once (${dbLabel})`, () => {
  const t = suiteApp();
  const owner = async (): Promise<CheckinOwner> => {
    const o = await checkinOwner(t.app);
    await setPins(t.app, o, PIN, DURESS);
    return o;
  };
  const started = async (o: CheckinOwner) => {
    const res = await startCheckin(t.app, o.token, { body: { duration_seconds: 1800 }, ip: nextIp() });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const checkin = (id: string) =>
    t.app.db.selectFrom('checkins').select('status').where('id', '=', id).executeTakeFirstOrThrow();
  const tries = (o: CheckinOwner) =>
    t.app.db.selectFrom('checkin_pin_tries').selectAll().where('user_id', '=', o.user.id).executeTakeFirst();
  const done = (o: CheckinOwner, id: string, pin: string, ip = nextIp()) =>
    checkinCall(t.app, o.token, id, 'done', { payload: { pin }, proof: o.proof, ip });

  it('forty answers at once with the device key, each from its own address: five are read, the rest refused unread, and it fires', async () => {
    const o = await owner();
    const id = await started(o);
    // The right PIN is the twentieth: past the five places, it must not be read.
    const pins = Array.from({ length: 40 }, (_, i) => (i === 19 ? PIN : WRONG));
    const answers = await Promise.all(pins.map((pin, i) => done(o, id, pin, `127.0.0.${i + 2}`)));
    const codes = answers.map((res) => res.json().code as string);
    expect(answers.every((res) => res.statusCode === 403)).toBe(true);
    // Four are told the PIN was wrong, the fifth that it locked; every other one was not read.
    expect(codes.filter((code) => code === 'wrong_pin')).toHaveLength(CHECKIN_WRONG_PINS - 1);
    expect(codes.filter((code) => code === 'pin_locked')).toHaveLength(40 - (CHECKIN_WRONG_PINS - 1));
    expect((await checkin(id)).status).toBe('running');
    expect(await tries(o)).toMatchObject({ wrong_pins: CHECKIN_WRONG_PINS, reading: 0 });
    await settle(t.app);
    await settle(t.app);
    expect((await checkin(id)).status).toBe('fired');
    expect(smsTo(t.app, o)).toHaveLength(1);
    const lockMails = t.app.outbox.emails.filter((mail) => mail.to === o.user.email && /PIN/.test(mail.subject));
    expect(lockMails).toHaveLength(1);
  });

  it("the owner's right PIN right after a wrong one ends the check-in, and neither it nor the duress PIN counts as wrong", async () => {
    const o = await owner();
    const first = await started(o);
    expect((await done(o, first, WRONG)).json().code).toBe('wrong_pin');
    const ended = await done(o, first, PIN);
    expect(ended.statusCode, ended.body).toBe(200);
    expect((await checkin(first)).status).toBe('done');
    const second = await started(o);
    expect((await done(o, second, WRONG)).json().code).toBe('wrong_pin');
    expect((await done(o, second, DURESS)).statusCode).toBe(200);
    expect(await tries(o)).toMatchObject({ wrong_pins: 2, reading: 0 });
    // Three more wrong ones are still only the fifth wrong of the hour at the last: the owner was not locked out.
    const third = await started(o);
    for (let i = 0; i < 2; i += 1) expect((await done(o, third, WRONG)).json().code).toBe('wrong_pin');
    expect((await done(o, third, PIN)).statusCode).toBe(200);
    const fourth = await started(o);
    expect((await done(o, fourth, WRONG)).json().code).toBe('pin_locked');
    await settle(t.app);
  });
});
