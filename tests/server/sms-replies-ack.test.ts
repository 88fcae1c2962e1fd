import type { FastifyInstance } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { endedMessage } from '../../common/sms-text-replies.js';
import { type Owner, ownerWithContacts } from './alerts-fixtures.js';
import { dbLabel, moveTime, suiteApp } from './helper.js';
import { postResolve, sendRealAlert } from './live-fixtures.js';
import { secondServer } from './second-process.js';
import { replySms, smsTo } from './sms-replies-fixtures.js';

const ESCALATION_MS = 300_000;

describe(`"On my way" by SMS reply (${dbLabel})`, () => {
  const t = suiteApp();
  let n = 0;
  const fresh = () => {
    n += 1;
    return `+35196300${String(n).padStart(4, '0')}`;
  };
  const settle = async (app: FastifyInstance = t.app) => {
    await app.jobs.runDue();
    await app.dispatcher.drain();
  };
  const named = async (owner: Owner, name: string) => {
    await t.app.db.updateTable('users').set({ display_name: name }).where('id', '=', owner.user.id).execute();
  };
  /**
   * A contact of two owners, each with a real alert open (the second's a second newer, so asked
   * first): the owners named `names`, the second in `language`.
   */
  const twoOwnersAlerting = async (names: [string, string], language: 'pt' | 'en' = 'en') => {
    const phone = fresh();
    const owners = [
      await ownerWithContacts(t.app, { contacts: [['Ana', phone]] }),
      await ownerWithContacts(t.app, { contacts: [['Ana', phone]], language }),
    ] as const;
    await named(owners[0], names[0]);
    await named(owners[1], names[1]);
    const first = await sendRealAlert(t.app, owners[0].token);
    t.clock.advance(1000);
    const second = await sendRealAlert(t.app, owners[1].token);
    await settle();
    return { phone, owners, alerts: [first, second] as const };
  };
  /** What the owner's page shows of an alert: its escalation, and who is on the way. */
  const ownerView = async (owner: Owner, alertId: string) => {
    const url = `/api/emergency/public/${owner.token}/alerts/${alertId}/`;
    const [alert, live] = await Promise.all([
      t.app.inject({ method: 'GET', url }),
      t.app.inject({ method: 'GET', url: `${url}live/` }),
    ]);
    return { escalation: alert.json().escalation.status as string, responders: live.json().responders as unknown[] };
  };

  it('1 during an alert is that contact’s "on my way", taken by another process and seen by the owner at once; nobody is phoned', async () => {
    const [ana, rui] = [fresh(), fresh()];
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['Ana Silva', ana],
        ['Rui Costa', rui],
      ],
    });
    const alert = await sendRealAlert(t.app, owner.token);
    await settle();
    expect(await ownerView(owner, alert.id)).toEqual({ escalation: 'waiting', responders: [] });

    const second = await secondServer(t);
    try {
      await second.app.ready();
      const published = vi.spyOn(second.app.liveHub, 'publish');
      expect(await replySms(second.app, ana, '1')).toBe('on_the_way');
      // Announced to every process's live streams, as the link's button does.
      expect(published).toHaveBeenCalledWith(alert.id);
    } finally {
      await second.close();
    }
    const seen = await ownerView(owner, alert.id);
    expect(seen.escalation).toBe('cancelled');
    expect(seen.responders).toEqual([
      { name: 'Ana Silva', created_at: expect.any(String), contact: true, channel: 'sms' },
    ]);
    // Again: still one answer for that contact.
    expect(await replySms(t.app, ana, 'On my way!')).toBe('on_the_way');
    expect((await ownerView(owner, alert.id)).responders).toHaveLength(1);

    moveTime(t, ESCALATION_MS + 1000);
    await settle();
    expect(t.app.outbox.calls.filter((call) => [ana, rui].includes(call.to))).toEqual([]);
  });

  it('OK during an alert says "on my way" too', async () => {
    const phone = fresh();
    const owner = await ownerWithContacts(t.app, { contacts: [['Eva Lopes', phone]] });
    const alert = await sendRealAlert(t.app, owner.token);
    await settle();
    expect(await replySms(t.app, phone, 'Ok')).toBe('on_the_way');
    expect((await ownerView(owner, alert.id)).responders).toEqual([
      { name: 'Eva Lopes', created_at: expect.any(String), contact: true, channel: 'sms' },
    ]);
  });

  it('a contact of two owners with open alerts is asked which, by name, and the next reply decides', async () => {
    const {
      phone,
      owners: [joana, pedro],
      alerts: [first, second],
    } = await twoOwnersAlerting(['Joana', 'Pedro']);

    expect(await replySms(t.app, phone, 'vou')).toBe('asked_which');
    const question = (await smsTo(t.app, phone)).at(-1);
    expect(question).toBe(
      'Alerta: several alerts are open. Who are you on your way to? Reply 1 for Pedro, 2 for Joana.',
    );
    expect((await ownerView(joana, first.id)).responders).toEqual([]);
    expect((await ownerView(pedro, second.id)).responders).toEqual([]);

    expect(await replySms(t.app, phone, '2')).toBe('on_the_way');
    expect((await ownerView(joana, first.id)).responders).toEqual([
      { name: 'Ana', created_at: expect.any(String), contact: true, channel: 'sms' },
    ]);
    expect((await ownerView(pedro, second.id)).responders).toEqual([]);
    expect((await ownerView(pedro, second.id)).escalation).toBe('waiting');
    // The question is answered: a later digit is no choice (2 alone means nothing else).
    expect(await replySms(t.app, phone, '2')).toBe('helped');
  });

  it('an auto-responder answering OK to a contact of two owners gets one "which alert?" an hour, not one per reply', async () => {
    const {
      phone,
      owners: [rita],
      alerts: [first],
    } = await twoOwnersAlerting(['Rita', 'Luis']);
    const questions = async () =>
      (await smsTo(t.app, phone)).filter((body) => body.includes('Who are you on your way to?'));

    expect(await replySms(t.app, phone, 'OK')).toBe('asked_which');
    expect(await replySms(t.app, phone, 'OK')).toBe('ignored');
    expect(await replySms(t.app, phone, 'ok!')).toBe('ignored');
    await settle();
    expect(await questions()).toHaveLength(1);
    // The question asked still stands: its digit decides.
    expect(await replySms(t.app, phone, '2')).toBe('on_the_way');
    expect((await ownerView(rita, first.id)).responders).toEqual([
      { name: 'Ana', created_at: expect.any(String), contact: true, channel: 'sms' },
    ]);
  });

  it('a digit answers only the question asked: its alert ended since, the contact is told so and the other owner’s alert is untouched', async () => {
    const {
      phone,
      owners: [joana, pedro],
      alerts: [first, second],
    } = await twoOwnersAlerting(['Joana', 'Pedro'], 'pt');
    expect(await replySms(t.app, phone, 'vou')).toBe('asked_which');
    // Asked in Pedro's language (his alert is first): 1 for Pedro, 2 for Joana.
    expect((await smsTo(t.app, phone)).at(-1)).toContain('Responda 1 para Pedro, 2 para Joana.');
    expect((await postResolve(t.app, pedro.token, second.id, { notify: false })).statusCode).toBe(200);

    const before = (await smsTo(t.app, phone)).length;
    expect(await replySms(t.app, phone, '1')).toBe('told_ended');
    expect((await smsTo(t.app, phone)).slice(before)).toEqual([endedMessage('pt', 1)]);
    // Sent again, the same digit is told once.
    expect(await replySms(t.app, phone, '1')).toBe('ignored');
    expect((await smsTo(t.app, phone)).slice(before)).toEqual([endedMessage('pt', 1)]);
    expect(await ownerView(joana, first.id)).toEqual({ escalation: 'waiting', responders: [] });
    expect((await ownerView(pedro, second.id)).responders).toEqual([]);
    // Joana's contact is still phoned.
    moveTime(t, ESCALATION_MS + 1000);
    await settle();
    expect(t.app.outbox.calls.filter((call) => call.to === phone)).toHaveLength(1);

    // The question still stands for its other choice.
    expect(await replySms(t.app, phone, '2')).toBe('on_the_way');
    expect((await ownerView(joana, first.id)).responders).toEqual([
      { name: 'Ana', created_at: expect.any(String), contact: true, channel: 'sms' },
    ]);
  });
});
