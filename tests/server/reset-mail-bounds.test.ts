import { describe, expect, it } from 'vitest';
import { MAIL_BURST } from '../../server/features/accounts/mail-bursts.js';
import { nextIp } from './accounts-helpers.js';
import { createUser, dbLabel, moveTime, suiteApp, type TestApp } from './helper.js';

// Anyone may ask for a password reset for any address, and each request used to mail it: five
// an hour per address, 120 a day to one inbox. Now reset e-mails follow the receipts' rule: the
// first of a burst at once, the rest of its 10 minutes in one summary with a fresh link, and
// at most 20 a day.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const NEW_PASSWORD = 'Bounded-Reset-64';
const RESET_LINK = /http:\/\/alerta\.test\/reset-password-confirm\/([^/\s]+)\/([\w-]+)/;

const mailsTo = (t: TestApp, to: string) => t.app.outbox.emails.filter((mail) => mail.to === to);

/** A reset request for `email`, each from its own client address; resolves once its mail (if any) is out. */
async function askReset(t: TestApp, email: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/users/reset-password/',
    payload: { email },
    remoteAddress: nextIp(),
  });
  expect(res.statusCode).toBe(200);
  await t.app.background.idle();
}

/** The summaries run from their timers. */
async function settle(t: TestApp) {
  await t.app.background.idle();
  await t.app.jobs.runDue();
}

/** Sets a new password with the link of a mail. */
function confirmWith(t: TestApp, text: string) {
  const [, uid, token] = RESET_LINK.exec(text) ?? [];
  return t.app.inject({
    method: 'POST',
    url: '/api/users/reset-password-confirm/',
    payload: { uid: decodeURIComponent(uid ?? ''), token, new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD },
    remoteAddress: nextIp(),
  });
}

describe(`password-reset e-mails: one per burst, 20 a day (${dbLabel})`, () => {
  const t = suiteApp();

  it('mails the first of five requests at once and the other four in one summary with a fresh link, which works', async () => {
    const owner = await createUser(t.app, { language: 'en' });
    const email = owner.user.email as string;
    for (let i = 0; i < 5; i += 1) {
      await askReset(t, email);
      t.clock.advance(10_000);
    }
    await settle(t);
    expect(mailsTo(t, email)).toHaveLength(1);
    expect(mailsTo(t, email)[0]?.subject).toBe('Reset your Alerta password');

    moveTime(t, MAIL_BURST.spacingMs);
    await settle(t);
    const [summary] = mailsTo(t, email);
    expect(mailsTo(t, email)).toHaveLength(2);
    expect(summary?.subject).toBe('More requests to reset your Alerta password');
    expect(summary?.text).toContain('4 more requests to reset the password of your account were made since');
    expect(summary?.text).toContain('at most one e-mail about password resets every 10 minutes and 20 a day');
    // The owner, right after, sets a new password with the summary's own link.
    const reset = await confirmWith(t, summary?.text ?? '');
    expect(reset.statusCode, reset.body).toBe(200);
    // Once only, however often the timers run.
    moveTime(t, 30 * MINUTE);
    await settle(t);
    expect(mailsTo(t, email)).toHaveLength(2);
  });

  it('writes the summary in Portuguese for a Portuguese owner, and none once the password changed', async () => {
    const owner = await createUser(t.app, { language: 'pt' });
    const email = owner.user.email as string;
    await askReset(t, email);
    await askReset(t, email);
    moveTime(t, MAIL_BURST.spacingMs);
    await settle(t);
    const [summary] = mailsTo(t, email);
    expect(summary?.subject).toBe('Novos pedidos para redefinir a sua palavra-passe do Alerta');
    expect(summary?.text).toContain('Houve mais 1 pedido para redefinir a palavra-passe da sua conta desde');

    // A burst after which the owner got in: its summary has nothing left to offer.
    moveTime(t, MAIL_BURST.spacingMs);
    await askReset(t, email);
    await askReset(t, email);
    expect(mailsTo(t, email)).toHaveLength(3);
    t.clock.advance(60_000);
    expect((await confirmWith(t, mailsTo(t, email)[0]?.text ?? '')).statusCode).toBe(200);
    moveTime(t, MAIL_BURST.spacingMs);
    await settle(t);
    expect(mailsTo(t, email)).toHaveLength(3);
  });

  it('sends at most 20 a day to an address asked for every 12 minutes all day long, and mails its owner again the next day', async () => {
    const owner = await createUser(t.app, { language: 'en' });
    const email = owner.user.email as string;
    const started = t.clock.now();
    // Five an hour, as many as the per-address limit lets through: 119 requests before the day is over.
    const gap = 12 * MINUTE + 1000;
    for (let i = 0; i < 119; i += 1) {
      await askReset(t, email);
      await settle(t);
      moveTime(t, gap);
    }
    expect(t.clock.now() - started).toBeLessThan(DAY);
    expect(mailsTo(t, email)).toHaveLength(MAIL_BURST.perDay);

    // When the day is over, what the cap held back is told once.
    moveTime(t, started + DAY - t.clock.now());
    await settle(t);
    expect(mailsTo(t, email)).toHaveLength(MAIL_BURST.perDay + 1);
    expect(mailsTo(t, email)[0]?.text).toContain('99 more requests to reset the password');

    // The owner's own request after that is mailed at once, and its link works.
    moveTime(t, MAIL_BURST.spacingMs);
    await askReset(t, email);
    const [latest] = mailsTo(t, email);
    expect(mailsTo(t, email)).toHaveLength(MAIL_BURST.perDay + 2);
    expect(latest?.subject).toBe('Reset your Alerta password');
    expect((await confirmWith(t, latest?.text ?? '')).statusCode).toBe(200);
  });

  it('an unknown address is mailed nothing and the answer is the same', async () => {
    const before = t.app.outbox.emails.length;
    await askReset(t, 'nobody-here@example.com');
    await settle(t);
    expect(t.app.outbox.emails.length).toBe(before);
  });
});
