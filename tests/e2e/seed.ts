import { randomBytes } from 'node:crypto';
import { OUTBOX_KEY, outboxJsonPath } from './server.js';

export interface SeededUser {
  username: string;
  token: string;
  contacts: { name: string; phone_number: string }[];
}

export interface SeedOptions {
  contacts?: { name: string; phone_number: string }[];
  plan?: 'basic' | 'premium';
  language?: 'pt' | 'en';
  countdownSeconds?: 0 | 3 | 5 | 10;
}

export interface OutboxSms {
  to: string;
  body: string;
  status: string;
  sent_at: string;
}

const DEFAULT_CONTACTS = [
  { name: 'Maria Silva', phone_number: '+351912345678' },
  { name: 'João Costa', phone_number: '+351934567890' },
];

async function call<T>(base: string, path: string, init: RequestInit & { access?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body) headers['content-type'] = 'application/json';
  if (init.access) headers.authorization = `Bearer ${init.access}`;
  const res = await fetch(`${base}${path}`, { ...init, headers, redirect: 'manual' });
  if (res.status >= 400) throw new Error(`${init.method ?? 'GET'} ${path} → ${res.status} ${await res.text()}`);
  const text = await res.text();
  return (text ? JSON.parse(text) : null) as T;
}

/** The SMS inviting a contact as they are added (seeding adds them), in either language: no alert's. */
export const INVITATION = /adicionou-o como contacto|added you as an emergency contact/;

/** The dev outbox's SMS, newest first, but the contacts' invitations. */
export async function outboxSms(base: string): Promise<OutboxSms[]> {
  return (await call<{ sms: OutboxSms[] }>(base, outboxJsonPath)).sms.filter((sms) => !INVITATION.test(sms.body));
}

/** A call the dev outbox captured (escalation), newest first. */
export interface OutboxCall {
  id: string;
  to: string;
  say: string;
  status: string;
}

export async function outboxCalls(base: string): Promise<OutboxCall[]> {
  return (await call<{ calls: OutboxCall[] }>(base, outboxJsonPath)).calls;
}

/** The callee pressing `digits` on a captured call, as Twilio's gather would report them. */
export function pressOnCall(base: string, id: string, digits: string): Promise<{ acknowledged: boolean }> {
  return call(base, `/dev/outbox/calls/${encodeURIComponent(id)}/digits/?key=${OUTBOX_KEY}`, {
    method: 'POST',
    body: JSON.stringify({ digits }),
  });
}

/**
 * A verified user with an active plan, contacts and a personal token, made through the public
 * API exactly as a person would: register, open the e-mailed link, log in, pay the simulated
 * checkout, add contacts.
 */
export async function seedUser(base: string, options: SeedOptions = {}): Promise<SeededUser> {
  const username = `u${randomBytes(5).toString('hex')}`;
  const email = `${username}@example.com`;
  const password = 'correct horse 42';
  await call(base, '/api/users/registration/', {
    method: 'POST',
    body: JSON.stringify({ username, email, password1: password, password2: password, accept_terms: true }),
  });
  const { emails } = await call<{ emails: { to: string; text: string }[] }>(base, outboxJsonPath);
  const link = emails
    .find((m) => m.to.includes(email))
    ?.text.match(/https?:\/\/\S+\/api\/users\/verify-email\/\S+/)?.[0];
  if (!link) throw new Error(`no verification e-mail for ${email}`);
  // Opened on `base`: the link names APP_URL, which need not be the address this test reaches the server at.
  const { pathname, search } = new URL(link);
  await fetch(`${base}${pathname}${search}`, { redirect: 'manual' });
  const { access } = await call<{ access: string }>(base, '/api/users/auth/login/', {
    method: 'POST',
    body: JSON.stringify({ username, password }),
  });
  const { url } = await call<{ url: string }>(base, '/api/billing/checkout/', {
    method: 'POST',
    access,
    body: JSON.stringify({ plan: options.plan ?? 'premium' }),
  });
  await call(base, `${new URL(url, base).pathname}/pay`, { method: 'POST' });
  await call(base, '/api/users/me/', {
    method: 'PATCH',
    access,
    body: JSON.stringify({
      language: options.language ?? 'pt',
      alert_countdown_seconds: options.countdownSeconds ?? 3,
    }),
  });
  const contacts = options.contacts ?? DEFAULT_CONTACTS;
  for (const contact of contacts) {
    await call(base, '/api/emergency/contacts/', { method: 'POST', access, body: JSON.stringify(contact) });
  }
  const me = await call<{ token: string | null }>(base, '/api/users/me/', { access });
  if (!me.token) throw new Error('the paid plan issued no token');
  return { username, token: me.token, contacts };
}
