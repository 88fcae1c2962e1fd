import { describe, expect, it } from 'vitest';
import { smsParts } from '../../common/sms-encoding.js';
import { LISBON, ownerWithContacts, postAlert } from './alerts-fixtures.js';
import { dbLabel, suiteApp } from './helper.js';
import { postResolve, sendRealAlert } from './live-fixtures.js';

/** Mathematical bold letters: each one is a surrogate pair, and each has a plain Latin form. */
const mathBold = (text: string) =>
  text.replace(/[A-Za-z]/g, (c) =>
    String.fromCodePoint(c <= 'Z' ? 0x1d400 + c.charCodeAt(0) - 65 : 0x1d41a + c.charCodeAt(0) - 97),
  );

describe(`the SMS of an owner with a name outside GSM-7 (${dbLabel})`, () => {
  const t = suiteApp();

  const smsTo = (phone: string) => t.app.outbox.sms.filter((sms) => sms.to === phone).map((sms) => sms.body);

  const cases = [
    { name: 'Мария Александровна Константинопольская', plain: null },
    { name: mathBold('Maria da Conceicao Silva Ferreira Castro'), plain: 'Maria da Conceicao Silva Ferreira Castro' },
    { name: 'Ｍａｒｉａ Ｓｉｌｖａ', plain: 'Maria Silva' },
  ];

  for (const [i, { name, plain }] of cases.entries()) {
    for (const language of ['pt', 'en'] as const) {
      const phone = `+3519212000${i}${language === 'pt' ? 1 : 2}`;
      const testPhone = `+3519212001${i}${language === 'pt' ? 1 : 2}`;
      it(`sends the live link within two parts for "${plain ?? name}" in ${language}, and an all-clear within two`, async () => {
        const owner = await ownerWithContacts(t.app, {
          language,
          contacts: [
            ['Ana Silva', phone],
            ['TEST Rui', testPhone],
          ],
        });
        const res = await t.app.inject({
          method: 'PATCH',
          url: '/api/users/me/',
          headers: owner.headers,
          payload: { display_name: name },
        });
        expect(res.statusCode, res.body).toBe(200);

        const alert = await sendRealAlert(t.app, owner.token);
        const test = await postAlert(t.app, owner.token, { mode: 'test', location: LISBON });
        expect(test.statusCode, test.body).toBe(201);
        await t.app.dispatcher.drain();
        const real = smsTo(phone).find((body) => body.startsWith('EMERG'));
        expect(real).toBeDefined();
        // The live link, whole, at the end (with the contact's own part where the link has one).
        expect(real).toMatch(new RegExp(` http://alerta\\.test/a/${alert.public_id}(\\?c=[\\w-]+)?$`));
        expect(real).toContain(plain ?? name.split(' ')[0]);
        expect(smsParts(real ?? '')).toBeLessThanOrEqual(2);
        for (const body of smsTo(testPhone)) expect(smsParts(body)).toBeLessThanOrEqual(2);

        expect((await postResolve(t.app, owner.token, alert.id, { notify: true })).statusCode).toBe(200);
        await t.app.dispatcher.drain();
        const clear = smsTo(phone).find((body) => body.startsWith('Alerta: '));
        expect(clear).toBeDefined();
        expect(smsParts(clear ?? '')).toBeLessThanOrEqual(2);
      });
    }
  }
});
