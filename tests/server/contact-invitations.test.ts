import { describe, expect, it } from 'vitest';
import { activateSubscription } from '../../server/features/billing/subscriptions.js';
import { createUser, dbLabel, moveTime, suiteApp, type TestUser } from './helper.js';
import { addContact, contactStates, replySms, smsTo } from './sms-replies-fixtures.js';

const DAY = 24 * 60 * 60 * 1000;

describe(`contact invitations (${dbLabel})`, () => {
  const t = suiteApp();
  let next = 0;
  /** A number no other test uses. */
  const fresh = () => {
    next += 1;
    return `+3519160000${String(next).padStart(2, '0')}`;
  };
  const subscriber = async (fields: { display_name?: string; language?: 'pt' | 'en' } = {}) => {
    const owner = await createUser(t.app, { language: fields.language ?? 'pt' });
    await activateSubscription(t.app.db, { userId: owner.user.id, plan: 'premium', now: t.clock.now() });
    if (fields.display_name) {
      await t.app.db
        .updateTable('users')
        .set({ display_name: fields.display_name })
        .where('id', '=', owner.user.id)
        .execute();
    }
    return owner;
  };
  /** Asks for the invitation again, with an access token signed now (a week later the first has expired). */
  const invite = async (owner: TestUser, id: string) => {
    const access = await t.app.tokens.signAccess(owner.user.id, owner.sessionId);
    return t.app.inject({
      method: 'POST',
      url: `/api/emergency/contacts/${id}/invite/`,
      headers: { authorization: `Bearer ${access}` },
    });
  };

  it('invites a contact by SMS when the owner adds them, in the owner’s language, with YES, STOP and the privacy page', async () => {
    const owner = await subscriber({ display_name: 'Joana Reis' });
    const phone = fresh();
    const res = await addContact(t.app, owner.headers, 'Mãe', phone);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ state: 'invited' });
    const [sms, ...more] = await smsTo(t.app, phone);
    expect(more).toEqual([]);
    // Accents give way (GSM-7) so that the text, its link whole, fits in two SMS parts.
    expect(sms).toContain('Alerta: Joana Reis adicionou-o como contacto de emergencia.');
    expect(sms).toContain('Responda SIM para confirmar, STOP para nao receber nada do Alerta.');
    expect(sms).toContain('http://alerta.test/privacy');

    const english = await subscriber({ display_name: 'John Smith', language: 'en' });
    const other = fresh();
    await addContact(t.app, english.headers, 'Mum', other);
    const [text] = await smsTo(t.app, other);
    expect(text).toContain('John Smith added you as an emergency contact');
    expect(text).toContain('Reply YES to confirm, STOP to receive nothing from Alerta.');
    expect(await contactStates(t.app, english.headers)).toEqual({ [other]: 'invited' });
  });

  it('sends one invitation per account and number; the owner may ask again from setup after a week, not before', async () => {
    const owner = await subscriber();
    const phone = fresh();
    const added = (await addContact(t.app, owner.headers, 'Rui', phone)).json() as {
      id: string;
      invite_again_at: string;
    };
    const { id } = added;
    expect(await smsTo(t.app, phone)).toHaveLength(1);
    // The answer says from when the owner may ask again: a week after this invitation.
    expect(Date.parse(added.invite_again_at)).toBe(t.clock.now() + 7 * DAY);

    const soon = await invite(owner, id);
    expect(soon.statusCode).toBe(429);
    expect(soon.json()).toMatchObject({ code: 'invitation_too_soon' });
    expect(await smsTo(t.app, phone)).toHaveLength(1);

    moveTime(t, 7 * DAY + 1);
    const again = await invite(owner, id);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ id, state: 'invited' });
    expect(Date.parse(again.json().invite_again_at)).toBe(t.clock.now() + 7 * DAY);
    expect(await smsTo(t.app, phone)).toHaveLength(2);
  });

  it('two re-invitations asked at once send one invitation; the other is too soon', async () => {
    const owner = await subscriber();
    const phone = fresh();
    const { id } = (await addContact(t.app, owner.headers, 'Lia', phone)).json() as { id: string };
    moveTime(t, 7 * DAY + 1);
    const both = await Promise.all([invite(owner, id), invite(owner, id)]);
    expect(both.map((res) => res.statusCode).sort()).toEqual([200, 429]);
    expect(both.find((res) => res.statusCode === 429)?.json()).toMatchObject({ code: 'invitation_too_soon' });
    expect(await smsTo(t.app, phone)).toHaveLength(2);
    const notices = await t.app.db.selectFrom('sms_notices').select('id').where('phone_number', '=', phone).execute();
    expect(notices).toHaveLength(2);
  });

  it('re-inviting needs the owner’s session: none is 401, another user’s contact is 404', async () => {
    const owner = await subscriber();
    const { id } = (await addContact(t.app, owner.headers, 'Eva', fresh())).json() as { id: string };
    expect((await t.app.inject({ method: 'POST', url: `/api/emergency/contacts/${id}/invite/` })).statusCode).toBe(401);
    const stranger = await subscriber();
    expect((await invite(stranger, id)).statusCode).toBe(404);
    moveTime(t, 7 * DAY + 1);
    expect((await invite(owner, id)).statusCode).toBe(200);
  });

  it('sends at most three invitations a day to one number across all accounts', async () => {
    const phone = fresh();
    for (let i = 0; i < 3; i += 1) {
      const owner = await subscriber();
      expect((await addContact(t.app, owner.headers, 'Luís', phone)).json()).toMatchObject({ state: 'invited' });
    }
    const fourth = await subscriber();
    const added = await addContact(t.app, fourth.headers, 'Luís', phone);
    expect(added.statusCode).toBe(201);
    expect(added.json()).toMatchObject({ state: 'added' });
    expect(await smsTo(t.app, phone)).toHaveLength(3);
    const { id } = added.json() as { id: string };
    const busy = await invite(fourth, id);
    expect(busy.statusCode).toBe(429);
    expect(busy.json()).toMatchObject({ code: 'invitation_limit' });

    moveTime(t, DAY + 1);
    expect((await invite(fourth, id)).statusCode).toBe(200);
    expect(await smsTo(t.app, phone)).toHaveLength(4);
  });

  it('never invites a number that replied STOP, and setup says to ask them to reply START', async () => {
    const first = await subscriber();
    const phone = fresh();
    await addContact(t.app, first.headers, 'Inês', phone);
    expect(await smsTo(t.app, phone)).toHaveLength(1);
    expect(await replySms(t.app, phone, 'Parar')).toBe('opted_out');
    expect(await contactStates(t.app, first.headers)).toEqual({ [phone]: 'opted_out' });

    const second = await subscriber();
    const added = await addContact(t.app, second.headers, 'Inês', phone);
    expect(added.json()).toMatchObject({ state: 'opted_out' });
    const refused = await invite(second, (added.json() as { id: string }).id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'contact_opted_out' });
    expect(await smsTo(t.app, phone)).toHaveLength(1);

    expect(await replySms(t.app, phone, 'start')).toBe('opted_in');
    expect(await contactStates(t.app, first.headers)).toEqual({ [phone]: 'invited' });
    expect((await invite(second, (added.json() as { id: string }).id)).statusCode).toBe(200);
    expect(await smsTo(t.app, phone)).toHaveLength(2);
  });

  it('marks a number opted out when the provider refuses its invitation as unsubscribed (Twilio’s 21610)', async () => {
    const owner = await subscriber();
    const phone = fresh();
    t.sms.refuseAsOptedOut(phone);
    expect((await addContact(t.app, owner.headers, 'Rita', phone)).json()).toMatchObject({ state: 'invited' });
    expect(await smsTo(t.app, phone)).toEqual([]);
    expect(await contactStates(t.app, owner.headers)).toEqual({ [phone]: 'opted_out' });
    const notice = await t.app.db
      .selectFrom('sms_notices')
      .select(['status', 'last_error'])
      .where('phone_number', '=', phone)
      .executeTakeFirstOrThrow();
    expect(notice.status).toBe('opted_out');
    expect(notice.last_error).toContain('21610');
  });
});
