import { describe, expect, it } from 'vitest';
import { subscriberWithContacts } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';

/** What a client that labels every call as JSON sends on a call without a body. */
const JSON_TYPE = { 'content-type': 'application/json' };

describe(`calls without a body sent as application/json (${dbLabel})`, () => {
  const t = suiteApp();

  const subscriber = () => subscriberWithContacts(t.app, 'premium', [['Ana Silva', '+351912345678']]);
  const send = (method: 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: string) =>
    t.app.inject({ method, url, headers: { ...headers, ...JSON_TYPE }, ...(payload === undefined ? {} : { payload }) });
  const contactIds = async (headers: Record<string, string>) => {
    const list = await t.app.inject({ method: 'GET', url: '/api/emergency/contacts/', headers });
    return (list.json() as { id: string }[]).map((contact) => contact.id);
  };

  it('deletes a contact', async () => {
    const owner = await subscriber();
    const [id] = owner.contactIds;
    const res = await send('DELETE', `/api/emergency/contacts/${id}/`, owner.headers);
    expect(res.statusCode).toBe(204);
    expect(await contactIds(owner.headers)).toEqual([]);
  });

  it('deletes the account', async () => {
    const owner = await subscriber();
    const res = await send('DELETE', '/api/users/delete-account/', owner.headers);
    expect(res.statusCode).toBe(204);
    const left = await t.app.db.selectFrom('users').select('id').where('id', '=', owner.user.id).executeTakeFirst();
    expect(left).toBeUndefined();
  });

  it('logs out: the session’s token stops working', async () => {
    const owner = await subscriber();
    const res = await send('POST', '/api/users/auth/logout/', owner.headers);
    expect(res.statusCode).toBe(204);
    const me = await t.app.inject({ method: 'GET', url: '/api/users/me/', headers: owner.headers });
    expect(me.statusCode).toBe(401);
  });

  it('opens the billing portal', async () => {
    const owner = await subscriber();
    const res = await send('POST', '/api/billing/portal/', owner.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ url: expect.stringMatching(/^\/dev\/portal\?session=/) });
  });

  it('names the missing fields of a route whose body is required', async () => {
    const res = await send('POST', '/api/users/auth/login/', {});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      username: ['This field is required.'],
      password: ['This field is required.'],
      code: 'required',
      codes: { username: 'required', password: 'required' },
    });
  });

  it('still refuses malformed JSON in the API’s shape, and does nothing', async () => {
    const owner = await subscriber();
    const [id] = owner.contactIds;
    const malformed = { detail: 'Malformed JSON body.', code: 'parse_error' };
    for (const payload of ['{"name":', ' ', '{"__proto__":{"admin":true}}']) {
      const add = await send('POST', '/api/emergency/contacts/', owner.headers, payload);
      expect(add.statusCode, payload).toBe(400);
      expect(add.json(), payload).toEqual(malformed);
    }
    const remove = await send('DELETE', `/api/emergency/contacts/${id}/`, owner.headers, '{');
    expect(remove.statusCode).toBe(400);
    expect(remove.json()).toEqual(malformed);
    expect(await contactIds(owner.headers)).toEqual([id]);
  });
});
