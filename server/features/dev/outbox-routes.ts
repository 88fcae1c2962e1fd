import { createHash, timingSafeEqual } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { detailError } from '../../lib/errors.js';
import { escapeHtml, page } from '../../lib/html.js';
import { pressKeys } from '../escalation/index.js';
import { handleReply } from '../sms-replies/index.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * What a header name says when a reverse proxy, CDN or load balancer added it: the request did
 * not start on this machine, whatever its peer address. Judged by what the name contains, not
 * from a list of known names, since each proxy spells its own (nginx's plain `proxy_pass` sends
 * X-Real-IP, ingress-nginx X-Original-Forwarded-For, Akamai True-Client-IP, WebLogic's plug-in
 * X-ProxyUser-Ip, others only Via). Read with dashes and underscores dropped.
 */
const FORWARDING_NAME =
  /forward|clientip|realip|userip|proxyuser|originatingip|connectingip|remoteaddr|remoteip|externaladdress|cdnloop/;
/** `Via`, alone or as one word of a name (`X-Via`), never inside another word. */
const VIA_WORD = /(^|[-_])via($|[-_])/;

/** Whether any header of the request looks like one a proxy adds. */
export const carriesForwarding = (headers: Record<string, unknown>): boolean =>
  Object.keys(headers).some((name) => {
    const lower = name.toLowerCase();
    return VIA_WORD.test(lower) || FORWARDING_NAME.test(lower.replace(/[-_]/g, ''));
  });

/** As the server answers an address that names nothing: a dev page refused does not say it exists. */
const notFound = () => detailError(404, 'Not found.', 'not_found');

/**
 * The dev pages (the outbox holds verification and reset links; the simulated checkout and
 * portal change plans): a loopback peer only (any peer with DEV_OUTBOX_PUBLIC=1), and never
 * behind a proxy: not with TRUST_PROXY set, not with any header a proxy adds. Others get a 404.
 */
export function requireLocal(app: FastifyInstance) {
  return async (request: FastifyRequest) => {
    const local = app.config.DEV_OUTBOX_PUBLIC || LOOPBACK.test(request.socket.remoteAddress ?? '');
    if (!local || app.config.TRUST_PROXY !== false || carriesForwarding(request.headers)) throw notFound();
  };
}

/** Whether this server has the outbox pages: some messages are captured, and the operator did not say production. */
export const outboxServed = (app: FastifyInstance) =>
  (app.mail.name === 'outbox' || app.sms.name === 'outbox' || app.voice.name === 'outbox') &&
  app.config.NODE_ENV !== 'production';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The outbox also needs its key (`?key=`, printed at start): without it, or with another, a 404. */
function requireKey(app: FastifyInstance) {
  const expected = digest(app.config.DEV_OUTBOX_KEY);
  return async (request: FastifyRequest<{ Querystring: { key?: unknown } }>) => {
    const key = request.query.key;
    if (typeof key !== 'string' || !timingSafeEqual(digest(key), expected)) throw notFound();
  };
}

/** `/dev/outbox` (a page) and `/dev/outbox.json`: what the embedded mail and SMS adapters captured. */
export default async function outboxRoutes(app: FastifyInstance) {
  const onRequest = [requireLocal(app), requireKey(app)];
  const key = encodeURIComponent(app.config.DEV_OUTBOX_KEY);
  app.get('/dev/outbox.json', { onRequest }, async (_request, reply) => {
    return reply.header('cache-control', 'no-store').send({
      emails: app.outbox.emails,
      push: app.outbox.push,
      sms: app.outbox.sms.map(({ to, body, status, sent_at }) => ({ to, body, status, sent_at })),
      calls: app.outbox.calls.map(({ id, to, say, status, placed_at }) => ({ id, to, say, status, placed_at })),
    });
  });

  // The callee pressing keys on a captured call, through the same code as Twilio's gather
  // callback: JSON `{digits}` answers what the call says back; the page's form returns to it.
  await app.register(formbody);
  app.post<{ Params: { id: string }; Querystring: { key?: unknown }; Body: { digits?: unknown } }>(
    '/dev/outbox/calls/:id/digits/',
    { onRequest },
    async (request, reply) => {
      const digits = request.body?.digits;
      if (typeof digits !== 'string' || !/^[0-9*#]{1,8}$/.test(digits)) {
        throw detailError(400, 'Send the keys pressed as "digits", e.g. "1".', 'invalid_digits');
      }
      const captured = app.outbox.calls.find((call) => call.id === request.params.id);
      const pressed = captured ? await pressKeys(app, captured.id, digits) : null;
      if (!captured || !pressed) throw notFound();
      if (pressed.acknowledged) captured.status = 'acknowledged';
      if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        return reply.redirect(`/dev/outbox?key=${key}`, 303);
      }
      return reply.send({ say: pressed.say, acknowledged: pressed.acknowledged });
    },
  );

  // A contact's SMS reply to Alerta's number, through the same code as Twilio's inbound webhook:
  // JSON `{from, body}` answers what it did; the page's form returns to it.
  app.post<{ Querystring: { key?: unknown }; Body: { from?: unknown; body?: unknown } }>(
    '/dev/outbox/sms/reply/',
    { onRequest },
    async (request, reply) => {
      const { from, body } = request.body ?? {};
      if (typeof from !== 'string' || !/^\+[0-9]{6,20}$/.test(from.trim()) || typeof body !== 'string') {
        throw detailError(
          400,
          'Send the sender as "from" (E.164, e.g. +351912345678) and the text as "body".',
          'invalid',
        );
      }
      const outcome = await handleReply(app, from, body.slice(0, 1600));
      if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        return reply.redirect(`/dev/outbox?key=${key}`, 303);
      }
      return reply.send({ outcome });
    },
  );

  app.get('/dev/outbox', { onRequest }, async (_request, reply) => {
    const emails = app.outbox.emails
      .map(
        (mail) => `<article><h3>${escapeHtml(mail.subject)}</h3>
<p class="meta">To ${escapeHtml(mail.to)} · ${escapeHtml(mail.sent_at)}</p>
<pre>${linkify(mail.text)}</pre></article>`,
      )
      .join('\n');
    const sms = app.outbox.sms
      .map(
        (
          message,
        ) => `<article><p class="meta">To ${escapeHtml(message.to)} · ${escapeHtml(message.sent_at)} · ${escapeHtml(message.status)}</p>
<pre>${linkify(message.body)}</pre>
<form method="post" action="/dev/outbox/sms/reply/?key=${key}"><input type="hidden" name="from" value="${escapeHtml(message.to)}"><input name="body" aria-label="Resposta · Reply" placeholder="SIM · STOP · 1"><button type="submit">Responder · Reply</button></form></article>`,
      )
      .join('\n');
    const calls = app.outbox.calls
      .map(
        (
          call,
        ) => `<article><p class="meta">To ${escapeHtml(call.to)} · ${escapeHtml(call.placed_at)} · ${escapeHtml(call.status)}</p>
<pre>${escapeHtml(call.say)}</pre>
<form method="post" action="/dev/outbox/calls/${encodeURIComponent(call.id)}/digits/?key=${key}"><input type="hidden" name="digits" value="1"><button type="submit">Premir 1 · Press 1</button></form></article>`,
      )
      .join('\n');
    const none = '<p>Nenhuma ainda · None yet.</p>';
    const body = `<h1>Caixa de saída · Dev outbox</h1>
<p>Mensagens e chamadas captadas pelos adaptadores de e-mail, SMS e voz embutidos, as mais recentes primeiro; configure SMTP e Twilio para enviar a sério · Messages and calls captured by the embedded mail, SMS and voice adapters, newest first. Configure SMTP and Twilio to send for real.</p>
<p><a href="/dev/outbox?key=${key}">Atualizar · Refresh</a> · <a href="/dev/outbox.json?key=${key}">JSON</a></p>
<h2>SMS (${app.outbox.sms.length})</h2>${sms || none}
<h2>Chamadas · Calls (${app.outbox.calls.length})</h2>${calls || none}
<h2>E-mail (${app.outbox.emails.length})</h2>${emails || none}`;
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page('Dev outbox', body));
  });
}

function linkify(text: string): string {
  return escapeHtml(text).replace(/https?:\/\/[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`);
}
