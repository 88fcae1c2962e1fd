import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { CapturedEmail } from '../../server/providers/outbox.js';
import type { TestApp } from './helper.js';

export const PASSWORD = 'Sturdy-Pass-42';
export const NEW_PASSWORD = 'Fresh-Start-77';

let ip = 0;
/** A new client address, so per-IP rate limits of one test do not leak into another. */
export const nextIp = (): string => {
  ip += 1;
  return `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`;
};

interface Options {
  headers?: Record<string, string>;
  ip?: string;
}

/** A JSON POST through app.inject; resolves once the work it left for after the answer (e-mails) is done. */
export async function post(
  t: TestApp,
  url: string,
  payload: unknown,
  options: Options = {},
): Promise<LightMyRequestResponse> {
  const res = await t.app.inject({
    method: 'POST',
    url,
    payload: payload as Record<string, unknown>,
    headers: options.headers,
    remoteAddress: options.ip ?? nextIp(),
  });
  await t.app.background.idle();
  return res;
}

/** A registration with valid defaults; `fields` override or (as undefined) remove them. */
export function registerUser(t: TestApp, fields: Record<string, unknown> = {}, options: Options = {}) {
  const username =
    typeof fields.username === 'string' ? fields.username : `u${Math.random().toString(36).slice(2, 10)}`;
  const body: Record<string, unknown> = {
    username,
    email: `${username.toLowerCase()}@example.com`,
    password1: PASSWORD,
    password2: PASSWORD,
    accept_terms: true,
    ...fields,
  };
  for (const [key, value] of Object.entries(fields)) if (value === undefined) delete body[key];
  return post(t, '/api/users/registration/', body, options);
}

/** The newest captured e-mail to `to`. */
export function lastMailTo(t: TestApp, to: string): CapturedEmail {
  const mail = t.app.outbox.emails.find((email) => email.to === to);
  expect(mail, `an e-mail to ${to}`).toBeDefined();
  return mail!;
}

/** The first http(s) link in a text. */
export function linkIn(text: string): string {
  const match = text.match(/https?:\/\/\S+/);
  expect(match, 'a link in the e-mail').not.toBeNull();
  return match![0];
}

/** The path of an absolute link, ready for app.inject. */
export const pathOf = (link: string): string => {
  const url = new URL(link);
  return url.pathname + url.search;
};

export function login(t: TestApp, username: string, password = PASSWORD, options: Options = {}) {
  return post(t, '/api/users/auth/login/', { username, password }, options);
}

/** Registers, follows the verification link, logs in: the tokens of a fresh verified account. */
export async function verifiedAccount(t: TestApp, fields: Record<string, unknown> = {}) {
  const username = (fields.username as string | undefined) ?? `u${Math.random().toString(36).slice(2, 10)}`;
  const email = (fields.email as string | undefined) ?? `${username.toLowerCase()}@example.com`;
  const res = await registerUser(t, { ...fields, username, email });
  expect(res.statusCode).toBe(201);
  const lowered = username.toLowerCase();
  const verify = await t.app.inject({ method: 'GET', url: pathOf(linkIn(lastMailTo(t, email.toLowerCase()).text)) });
  expect(verify.headers.location).toBe('/email-confirmed');
  const tokens = await login(t, lowered);
  expect(tokens.statusCode).toBe(200);
  const { access, refresh } = tokens.json() as { access: string; refresh: string };
  return {
    username: lowered,
    email: email.toLowerCase(),
    access,
    refresh,
    auth: { authorization: `Bearer ${access}` },
  };
}
