import { describe, expect, it } from 'vitest';
import { ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';
import { replySms } from './sms-replies-fixtures.js';

const MINUTE = 60_000;

describe(`the owner is told when a contact says STOP (${dbLabel})`, () => {
  const t = suiteApp();
  let n = 0;
  const fresh = () => {
    n += 1;
    return `+35196400${String(n).padStart(4, '0')}`;
  };
  /** The e-mails to `address`, oldest first, once the jobs due now have run. */
  const mailsTo = async (address: string | null) => {
    await t.app.jobs.runDue();
    return t.app.outbox.emails.filter((mail) => mail.to === address).reverse();
  };

  it('each owner who has the number gets one e-mail in her language: who, what it means, what to ask', async () => {
    const phone = fresh();
    const pt = await ownerWithContacts(t.app, { language: 'pt', contacts: [['Ana Sousa', phone]] });
    const en = await ownerWithContacts(t.app, { language: 'en', contacts: [['Aunt Ana', phone]] });
    const other = await ownerWithContacts(t.app, { contacts: [['Rui', fresh()]] });

    expect(await replySms(t.app, phone, 'STOP')).toBe('opted_out');

    const [toPt, ...morePt] = await mailsTo(pt.user.email);
    expect(morePt).toEqual([]);
    expect(toPt?.subject).toBe('Alerta: Ana Sousa deixou de receber os seus alertas por SMS');
    expect(toPt?.text).toContain(`Ana Sousa (${phone}), um dos seus contactos de emergência, respondeu STOP`);
    expect(toPt?.text).toContain('responder START (ou INICIAR) ao número do Alerta');
    expect(toPt?.text).toContain('/setup');

    const [toEn, ...moreEn] = await mailsTo(en.user.email);
    expect(moreEn).toEqual([]);
    expect(toEn?.subject).toBe('Alerta: Aunt Ana no longer receives your alerts by SMS');
    expect(toEn?.text).toContain(`Aunt Ana (${phone}), one of your emergency contacts, replied STOP`);
    expect(toEn?.text).toContain('they reply START to Alerta’s number');
    expect(toEn?.html).toContain('Aunt Ana');

    expect(await mailsTo(other.user.email)).toEqual([]);
  });

  it('a repeated STOP mails no one while the number stays opted out; a STOP after START is told again', async () => {
    const phone = fresh();
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', phone]] });
    expect(await replySms(t.app, phone, 'STOP')).toBe('opted_out');
    expect(await mailsTo(owner.user.email)).toHaveLength(1);

    expect(await replySms(t.app, phone, 'stop')).toBe('opted_out');
    expect(await replySms(t.app, phone, 'PARAR')).toBe('opted_out');
    moveTime(t, 11 * MINUTE);
    expect(await mailsTo(owner.user.email)).toHaveLength(1);

    expect(await replySms(t.app, phone, 'START')).toBe('opted_in');
    expect(await replySms(t.app, phone, 'STOP')).toBe('opted_out');
    const mails = await mailsTo(owner.user.email);
    expect(mails).toHaveLength(2);
    expect(mails[1]?.subject).toBe('Alerta: Ana no longer receives your alerts by SMS');
  });

  it('an unverified address, or none, gets nothing', async () => {
    const phone = fresh();
    const unverified = await ownerWithContacts(t.app, { contacts: [['Ana', phone]] });
    await t.app.db.updateTable('users').set({ email_verified: 0 }).where('id', '=', unverified.user.id).execute();
    const none = await ownerWithContacts(t.app, { contacts: [['Ana', phone]] });
    await t.app.db.updateTable('users').set({ email: null }).where('id', '=', none.user.id).execute();
    const verified = await ownerWithContacts(t.app, { contacts: [['Ana', phone]] });

    expect(await replySms(t.app, phone, 'STOP')).toBe('opted_out');
    expect(await mailsTo(unverified.user.email)).toEqual([]);
    expect(await mailsTo(verified.user.email)).toHaveLength(1);
    expect(t.app.outbox.emails.filter((mail) => mail.to === null || mail.to === '')).toEqual([]);
  });

  it('STOP and START again and again: the first at once, the rest in one summary ten minutes later', async () => {
    const [ana, rui] = [fresh(), fresh()];
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['Ana', ana],
        ['Rui', rui],
      ],
    });
    for (let i = 0; i < 5; i += 1) {
      expect(await replySms(t.app, ana, 'STOP')).toBe('opted_out');
      // Each STOP's e-mail job runs before the next (a job still waiting would only be set again).
      await t.app.jobs.runDue();
      expect(await replySms(t.app, ana, 'START')).toBe('opted_in');
      t.clock.advance(1000);
    }
    expect(await replySms(t.app, ana, 'STOP')).toBe('opted_out');
    expect(await replySms(t.app, rui, 'STOP')).toBe('opted_out');
    expect(await mailsTo(owner.user.email)).toHaveLength(1);

    moveTime(t, 10 * MINUTE);
    const [first, summary, ...rest] = await mailsTo(owner.user.email);
    expect(first?.subject).toBe('Alerta: Ana no longer receives your alerts by SMS');
    expect(rest).toEqual([]);
    expect(summary?.subject).toBe('Alerta: more of your contacts no longer receive your alerts by SMS');
    // Six more STOPs since the first; the contacts opted out now, by name.
    expect(summary?.text).toContain('Your contacts replied STOP to Alerta’s number 6 more times since');
    expect(summary?.text).toContain('Opted out now: Ana, Rui.');
    expect(summary?.text).toContain('at most one e-mail about contacts who replied STOP every 10 minutes');
  });

  it('a number the provider reports opted out (STOP said to the carrier) is told the same way, once', async () => {
    const phone = fresh();
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', phone]] });
    t.sms.refuseAsOptedOut(phone);
    expect((await postAlert(t.app, owner.token)).statusCode).toBe(201);
    await t.app.dispatcher.drain();
    const told = async () =>
      (await mailsTo(owner.user.email)).filter((mail) => mail.subject.includes('no longer receives your alerts'));
    expect(await told()).toHaveLength(1);
    // Another alert to the same number, already opted out: nothing more.
    moveTime(t, 11 * MINUTE);
    expect((await postAlert(t.app, owner.token)).statusCode).toBe(201);
    await t.app.dispatcher.drain();
    expect(await told()).toHaveLength(1);
  });
});
