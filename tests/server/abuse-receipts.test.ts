import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { summaryJob, summaryMails } from '../../server/features/accounts/mail-summaries.js';
import { createJobs } from '../../server/jobs/index.js';
import { nextIp, registerUser } from './accounts-helpers.js';
import { lisbonAt, type Owner, ownerWithContacts } from './alerts-fixtures.js';
import { createUser, dbKind, dbLabel, moveTime, suiteApp } from './helper.js';
import { secondServer } from './second-process.js';

// E-mail bombing through a leaked link: every real alert used to mail the owner a receipt
// (with a new "this wasn't me" key row each), and every registration attempt with a taken
// address mailed its holder. Now one e-mail per burst, one summary per 10 minutes at most,
// sent by the sweep even when nothing else comes, once across processes, and 20 a day.

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const SUMMARY = /(\d+) more real emergency alerts? (?:was|were) sent from your link since/;
const LINK = /http:\/\/alerta\.test(\/api\/users\/not-me\/[\w-]+\/)/;

const alertFrom = (app: FastifyInstance, token: string) =>
  app.inject({
    method: 'POST',
    url: `/api/emergency/public/${token}/alerts/`,
    headers: { 'idempotency-key': randomUUID() },
    payload: { mode: 'real', location: lisbonAt(app) },
    remoteAddress: nextIp(),
  });

describe(`receipts and notices: one e-mail per burst (${dbLabel})`, () => {
  const t = suiteApp();

  const mailsTo = (to: string, app: FastifyInstance = t.app) => app.outbox.emails.filter((mail) => mail.to === to);
  const summaries = (to: string, app: FastifyInstance = t.app) =>
    mailsTo(to, app).filter((mail) => SUMMARY.test(mail.text));
  const send = async (owner: Owner, app: FastifyInstance = t.app) => {
    const res = await alertFrom(app, owner.token);
    expect(res.statusCode, res.body).toBe(201);
    // The receipt is written after the answer: done before the clock moves on.
    await app.background.idle();
    return res;
  };
  // The summaries run as jobs; the SMS from the dispatcher.
  const settle = async (app: FastifyInstance = t.app) => {
    await app.background.idle();
    await app.dispatcher.drain();
    await app.jobs.runDue();
  };

  it('mails the first of 50 alerts in a minute at once and the other 49 in one summary 10 minutes later, with no further alert', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100001']] });
    const email = owner.user.email as string;
    for (let i = 0; i < 50; i += 1) {
      await send(owner);
      t.clock.advance(1000);
    }
    await settle();
    const first = mailsTo(email);
    expect(first).toHaveLength(1);
    expect(first[0]?.subject).toBe('Alerta: an emergency alert was sent with your link');
    const link = LINK.exec(first[0]?.text ?? '')?.[1];
    expect(link).toBeDefined();

    // Nine minutes on: nothing yet. Ten minutes after the first mail the sweep sends the summary.
    moveTime(t, 9 * MINUTE - 50_000);
    await settle();
    expect(mailsTo(email)).toHaveLength(1);
    moveTime(t, MINUTE);
    await settle();
    const [summary] = summaries(email);
    expect(summaries(email)).toHaveLength(1);
    expect(summary?.subject).toBe('Alerta: more emergency alerts were sent with your link');
    expect(summary?.text).toContain('49 more real emergency alerts were sent from your link since');
    expect(summary?.text).toContain('at most one e-mail about alerts every 10 minutes and 20 a day');
    // The same "this wasn't me" key serves the whole burst.
    expect(LINK.exec(summary?.text ?? '')?.[1]).toBe(link);
    // Once only, however often the sweep runs.
    moveTime(t, 30 * MINUTE);
    await settle();
    expect(mailsTo(email)).toHaveLength(2);

    // The owner is not held back: the next alert goes to the contact and is mailed at once.
    await send(owner);
    await settle();
    expect(t.app.outbox.sms.filter((sms) => sms.to === '+351963100001').length).toBeGreaterThan(0);
    expect(mailsTo(email)).toHaveLength(3);
    expect(mailsTo(email)[0]?.text).toContain('A real emergency alert was sent from your link on');
  });

  it('writes the summary in Portuguese for a Portuguese owner', async () => {
    const owner = await ownerWithContacts(t.app, { language: 'pt', contacts: [['Ana', '+351963100002']] });
    const email = owner.user.email as string;
    await send(owner);
    await send(owner);
    await send(owner);
    moveTime(t, 10 * MINUTE);
    await settle();
    const [summary] = mailsTo(email);
    expect(mailsTo(email)).toHaveLength(2);
    expect(summary?.subject).toBe('Alerta: mais alertas de emergência foram enviados com a sua ligação');
    expect(summary?.text).toContain('Foram enviados mais 2 alertas de emergência reais a partir da sua ligação desde');
    expect(summary?.html).toContain('Não fui eu: criar novas ligações');
  });

  it('sends the first mail and the summary once with two servers on one database', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100003']] });
    const email = owner.user.email as string;
    // A second app with its own connections to the same database, as another server process.
    const second = await secondServer(t);
    const other = second.app;
    try {
      await other.ready();
      const apps = [t.app, other];
      await Promise.all(Array.from({ length: 20 }, (_, i) => send(owner, apps[i % 2])));
      await Promise.all(apps.map((app) => app.background.idle()));
      expect(mailsTo(email).length + mailsTo(email, other).length).toBe(1);
      moveTime(t, 10 * MINUTE);
      await Promise.all(apps.flatMap((app) => [settle(app), settle(app)]));
      const all = [...summaries(email), ...summaries(email, other)];
      expect(all).toHaveLength(1);
      expect(all[0]?.text).toContain('19 more real emergency alerts');
      moveTime(t, 10 * MINUTE);
      await Promise.all(apps.map((app) => settle(app)));
      expect(mailsTo(email).length + mailsTo(email, other).length).toBe(2);
    } finally {
      await second.close();
    }
  });

  it('sends a summary whose sender died mid-send once the claim lapses, and only then', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100007']] });
    const email = owner.user.email as string;
    for (let i = 0; i < 4; i += 1) await send(owner);
    moveTime(t, 10 * MINUTE);
    // Another process takes the due summary and stops while sending it (a crash or a restart).
    let taken: (count: number) => void = () => {};
    const sending = new Promise<number>((resolve) => (taken = resolve));
    const dying = createJobs({ db: t.app.db, dialect: t.app.dialect, clock: t.clock, kinds: { 'mail-summary': {} } });
    const hangs = { name: 'outbox' as const, send: () => new Promise<never>(() => {}) };
    const write = (_user: unknown, count: number) => {
      taken(count);
      return { to: email, subject: 'summary', text: `${count}`, html: '' };
    };
    const mails = summaryMails();
    for (const kind of ['alert_receipt', 'registration_notice', 'checkin_reminder', 'contact_opt_out'] as const) {
      mails.add(kind, write);
    }
    dying.handle('mail-summary', summaryJob({ ...t.app, mail: hangs }, mails));
    void dying.runDue();
    expect(await sending).toBe(3);
    // It dies there: it takes nothing more (its engine would otherwise go on claiming beside its hung send).
    await dying.stop(0);
    await settle();
    expect(summaries(email)).toHaveLength(0);
    // The timer's lease (a minute) lapses: this server sends what the dead one had taken.
    moveTime(t, MINUTE + 1000);
    await settle();
    expect(summaries(email)).toHaveLength(1);
    expect(summaries(email)[0]?.text).toContain('3 more real emergency alerts');
  });

  it('mails one address at most 20 times in 24 hours; what the cap held back is summarised after', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963100004']] });
    const email = owner.user.email as string;
    // A new burst every 10 minutes: 30 alerts, each one the first of its burst.
    for (let i = 0; i < 30; i += 1) {
      await send(owner);
      await settle();
      moveTime(t, 10 * MINUTE + 1000);
      await settle();
    }
    expect(mailsTo(email)).toHaveLength(20);
    // Still the same day: more alerts are counted, not mailed.
    await send(owner);
    moveTime(t, 10 * MINUTE);
    await settle();
    expect(mailsTo(email)).toHaveLength(20);
    // The day since the first mail is over: one summary of the 11 held back.
    moveTime(t, DAY - 30 * (10 * MINUTE + 1000) - 10 * MINUTE);
    await settle();
    expect(mailsTo(email)).toHaveLength(21);
    expect(mailsTo(email)[0]?.text).toContain('11 more real emergency alerts were sent from your link since');
  });

  it('sends one registration notice per burst to a taken address, a summary after, and 20 a day at most', async () => {
    const holder = await createUser(t.app, { language: 'en' });
    const email = holder.user.email as string;
    for (let i = 0; i < 30; i += 1) {
      const res = await registerUser(t, { email }, { headers: { 'accept-language': 'en' } });
      expect(res.statusCode).toBe(201);
    }
    expect(mailsTo(email)).toHaveLength(1);
    expect(mailsTo(email)[0]?.subject).toBe('Someone tried to sign up to Alerta with your e-mail');
    moveTime(t, 10 * MINUTE);
    await settle();
    expect(mailsTo(email)).toHaveLength(2);
    const [summary] = mailsTo(email);
    expect(summary?.subject).toBe('More attempts to sign up to Alerta with your e-mail');
    expect(summary?.text).toContain(
      '29 more attempts to create an Alerta account with this e-mail address were made since',
    );
    expect(summary?.text).toContain('http://alerta.test/login');

    // One attempt every 10 minutes: 20 notices in the day, no more.
    for (let i = 0; i < 25; i += 1) {
      moveTime(t, 10 * MINUTE + 1000);
      expect((await registerUser(t, { email })).statusCode).toBe(201);
    }
    await settle();
    expect(mailsTo(email)).toHaveLength(20);

    // Meanwhile a sign-up with a new address gets its verification e-mail at once.
    const fresh = `fresh${randomUUID().slice(0, 8)}@example.com`;
    expect((await registerUser(t, { email: fresh })).statusCode).toBe(201);
    expect(mailsTo(fresh)).toHaveLength(1);
  });

  it('writes the registration summary in Portuguese for a Portuguese holder', async () => {
    const holder = await createUser(t.app, { language: 'pt' });
    const email = holder.user.email as string;
    for (let i = 0; i < 3; i += 1) expect((await registerUser(t, { email })).statusCode).toBe(201);
    moveTime(t, 10 * MINUTE);
    await settle();
    const [summary] = mailsTo(email);
    expect(summary?.subject).toBe('Novas tentativas de registo com o seu e-mail no Alerta');
    expect(summary?.text).toContain(
      'Houve mais 2 tentativas de criar uma conta no Alerta com este endereço de e-mail desde',
    );
  });

  it('grows no table but alerts and deliveries by more than a few rows over 200 alerts', async () => {
    const owner = await ownerWithContacts(t.app, {
      contacts: [
        ['Ana', '+351963100005'],
        ['Rui', '+351963100006'],
      ],
    });
    // This app's own tables (not Kysely's introspection: it reads every schema's columns).
    const { rows: listed } =
      dbKind === 'postgres'
        ? await sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(t.app.db)
        : await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(t.app.db);
    const tables = listed
      .map((table) => table.name)
      .filter((name) => !name.startsWith('kysely_') && !name.startsWith('sqlite_'));
    expect(tables).toEqual(expect.arrayContaining(['users', 'alerts', 'deliveries', 'mail_bursts']));
    const count = async () => {
      const counts: Record<string, number> = {};
      for (const name of tables) {
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(name)}`.execute(
          t.app.db,
        );
        counts[name] = Number(rows[0]?.n);
      }
      return counts;
    };
    const before = await count();
    for (let i = 0; i < 200; i += 1) await send(owner);
    moveTime(t, 10 * MINUTE);
    await settle();
    const after = await count();
    expect(after.alerts! - before.alerts!).toBe(200);
    // The alerts' own SMS, and the second SMS of their escalation, which only numbers within the
    // SMS budgets get: as many at most as the budgets let through.
    expect(after.deliveries! - before.deliveries! - 400).toBeGreaterThanOrEqual(0);
    expect(after.deliveries! - before.deliveries! - 400).toBeLessThanOrEqual(20);
    const grown = Object.fromEntries(
      tables
        .filter((name) => name !== 'alerts' && name !== 'deliveries')
        .map((name) => [name, after[name]! - before[name]!]),
    );
    // What is billed is bounded by the SMS budgets (10 per number in 10 minutes): the alerts' SMS
    // sent, the escalation's second SMS and a call only to a number an alert's SMS reached.
    expect(grown.usage_records).toBeLessThanOrEqual(60);
    expect(grown.escalation_calls).toBeLessThanOrEqual(20);
    delete grown.usage_records;
    delete grown.escalation_calls;
    for (const [name, rows] of Object.entries(grown)) expect(rows, name).toBeLessThanOrEqual(2);
    expect(mailsTo(owner.user.email as string)).toHaveLength(2);
  });
});

describe(`"this wasn't me" links end when the links are replaced (${dbLabel})`, () => {
  const t = suiteApp();

  const mailsTo = (to: string) => t.app.outbox.emails.filter((mail) => mail.to === to);
  const tokenOf = async (owner: Owner) =>
    (await t.app.db.selectFrom('users').select('token').where('id', '=', owner.user.id).executeTakeFirstOrThrow())
      .token;
  const click = (link: string) =>
    t.app.inject({
      method: 'POST',
      url: link,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
      remoteAddress: nextIp(),
    });
  const open = (link: string) => t.app.inject({ method: 'GET', url: link, remoteAddress: nextIp() });
  const linkOfNewestMail = (owner: Owner) =>
    LINK.exec(mailsTo(owner.user.email as string)[0]?.text ?? '')?.[1] as string;

  it('answers 410 to a link mailed before the owner made new links in the app', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963200001']] });
    expect((await alertFrom(t.app, owner.token)).statusCode).toBe(201);
    await t.app.background.idle();
    const link = linkOfNewestMail(owner);
    expect((await open(link)).statusCode).toBe(200);

    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/users/token/rotate/',
      headers: owner.headers,
      remoteAddress: nextIp(),
    });
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json().token as string;

    const page = await open(link);
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('Link already used');
    expect(page.body).toContain('Ligação já usada');
    const late = await click(link);
    expect(late.statusCode).toBe(410);
    // The holder of the old e-mail cannot replace the owner's new links.
    expect(await tokenOf(owner)).toBe(fresh);
    expect((await t.app.inject({ method: 'GET', url: `/api/emergency/public/${fresh}/` })).statusCode).toBe(200);

    // The next alert through the new link carries a new, working key.
    moveTime(t, 10 * MINUTE);
    expect((await alertFrom(t.app, fresh)).statusCode).toBe(201);
    await t.app.background.idle();
    const next = linkOfNewestMail(owner);
    expect(next).not.toBe(link);
    expect((await open(next)).statusCode).toBe(200);
    await t.app.dispatcher.drain();
  });

  it('ends every other outstanding link when one of them is used, and says so', async () => {
    const owner = await ownerWithContacts(t.app, { contacts: [['Ana', '+351963200002']] });
    expect((await alertFrom(t.app, owner.token)).statusCode).toBe(201);
    await t.app.background.idle();
    const older = linkOfNewestMail(owner);
    // Six and a half days on, the old key has too little time left: the next e-mail has a new one.
    moveTime(t, 6.5 * DAY);
    expect((await alertFrom(t.app, owner.token)).statusCode).toBe(201);
    await t.app.background.idle();
    const newer = linkOfNewestMail(owner);
    expect(newer).not.toBe(older);
    expect((await open(older)).statusCode).toBe(200);

    const done = await click(newer);
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('New links made');
    const token = await tokenOf(owner);
    expect(token).not.toBe(owner.token);

    expect((await open(older)).statusCode).toBe(410);
    expect((await click(older)).statusCode).toBe(410);
    expect((await click(newer)).statusCode).toBe(410);
    expect(await tokenOf(owner)).toBe(token);
    // A made-up key is still just unknown.
    expect((await open('/api/users/not-me/not-a-key/')).statusCode).toBe(404);
    await t.app.dispatcher.drain();
  });
});
