import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmtpMail } from '../../server/providers/mail/smtp.js';
import { linkIn, login, pathOf, post, registerUser } from './accounts-helpers.js';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** Headers (unfolded, lowercased names) and body of one MIME entity. */
function entity(raw: string): { headers: Record<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: raw.slice(split + 4) };
}

/** Decodes a part's body by its Content-Transfer-Encoding. */
function decode(part: { headers: Record<string, string>; body: string }): string {
  const encoding = (part.headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = part.body
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return part.body;
}

/** The text/plain and text/html parts of a multipart/alternative message. */
function parts(raw: string) {
  const message = entity(raw);
  const type = message.headers['content-type'] ?? '';
  expect(type).toMatch(/^multipart\/alternative/);
  const boundary = type.match(/boundary="?([^";]+)"?/)![1]!;
  const found: Record<string, string> = {};
  for (const chunk of message.body.split(`--${boundary}`).slice(1, -1)) {
    const part = entity(chunk.replace(/^\r\n/, ''));
    const kind = (part.headers['content-type'] ?? '').split(';')[0]!.trim();
    found[kind] = decode(part);
  }
  return { headers: message.headers, text: found['text/plain'], html: found['text/html'] };
}

describe(`SMTP mail adapter against a real SMTP server on loopback (${dbLabel})`, () => {
  const received: Received[] = [];
  let server: SMTPServer;
  let url: string;
  let t: TestApp;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith('bounce')) return callback(new Error('550 mailbox unavailable'));
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    t = await buildTestApp({ SMTP_URL: url, MAIL_FROM: 'Alerta <no-reply@alerta.test>' });
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Waits for the next message to `to` (mail for reset and resend leaves after the answer). */
  async function nextMessageTo(to: string, after = 0): Promise<Received> {
    for (let i = 0; i < 100; i += 1) {
      const message = received.slice(after).find((m) => m.to.includes(to));
      if (message) return message;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no message to ${to}`);
  }

  it('sends through the adapter with sender, recipient, subject and both parts', async () => {
    const mail = createSmtpMail(url, 'Alerta <no-reply@alerta.test>');
    await mail.send({
      to: 'direct@example.com',
      subject: 'Olá, teste',
      text: 'Texto com acentos: ação',
      html: '<p>ação</p>',
    });
    await mail.close?.();
    const message = await nextMessageTo('direct@example.com');
    expect(message.from).toBe('no-reply@alerta.test');
    expect(message.to).toEqual(['direct@example.com']);
    const { headers, text, html } = parts(message.raw);
    expect(headers.to).toBe('direct@example.com');
    expect(headers.from).toBe('Alerta <no-reply@alerta.test>');
    expect(headers.subject).toMatch(/^=\?UTF-8\?/i);
    expect(text?.trim()).toBe('Texto com acentos: ação');
    expect(html?.trim()).toBe('<p>ação</p>');
  });

  it('delivers the verification e-mail of a registration, whose link verifies', async () => {
    const before = received.length;
    const res = await registerUser(t, { username: 'smtpuser', email: 'smtpuser@example.com' });
    expect(res.statusCode).toBe(201);
    expect(t.app.outbox.emails).toHaveLength(0);
    const message = await nextMessageTo('smtpuser@example.com', before);
    expect(message.to).toEqual(['smtpuser@example.com']);
    const { headers, text, html } = parts(message.raw);
    expect(headers.subject).toBe('Confirme o seu e-mail no Alerta');
    expect(text).toContain('Olá smtpuser,');
    const link = linkIn(text!);
    expect(link).toMatch(/^http:\/\/alerta\.test\/api\/users\/verify-email\/[\w-]+\/$/);
    expect(html).toContain(`href="${link}"`);
    const verify = await t.app.inject({ method: 'GET', url: pathOf(link) });
    expect(verify.headers.location).toBe('/email-confirmed');
  });

  it('delivers the reset e-mail in English with the confirm link', async () => {
    const before = received.length;
    await post(
      t,
      '/api/users/reset-password/',
      { email: 'smtpuser@example.com' },
      { headers: { 'accept-language': 'en' } },
    );
    const { headers, text, html } = parts((await nextMessageTo('smtpuser@example.com', before)).raw);
    expect(headers.subject).toBe('Reset your Alerta password');
    const link = linkIn(text!);
    expect(link).toMatch(/^http:\/\/alerta\.test\/reset-password-confirm\/[\w-]+\/[\w-]+$/);
    expect(html).toContain(`href="${link}"`);
  });

  it('keeps a registration whose mail the server refused; the address can ask again later', async () => {
    const res = await registerUser(t, { username: 'bouncer', email: 'bounce@example.com' });
    expect(res.statusCode).toBe(201);
    const user = await t.app.db.selectFrom('users').selectAll().where('username', '=', 'bouncer').executeTakeFirst();
    expect(user?.email).toBe('bounce@example.com');
    expect((await login(t, 'bouncer')).statusCode).toBe(403);
  });
});
