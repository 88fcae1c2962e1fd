import type { FastifyInstance, FastifyRequest } from 'fastify';
import { detailError } from '../../lib/errors.js';
import { escapeHtml, page } from '../../lib/html.js';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** Set by a reverse proxy: the request did not start on this machine, whatever its peer address. */
const proxied = (request: FastifyRequest) =>
  Object.keys(request.headers).some((name) => name === 'forwarded' || name.startsWith('x-forwarded-'));

/**
 * The dev pages (the outbox holds verification and reset links; the simulated checkout and
 * portal change plans): a loopback peer only (any peer with DEV_OUTBOX_PUBLIC=1), and never
 * behind a proxy: not with TRUST_PROXY set, not with any Forwarded or X-Forwarded-* header.
 */
export function requireLocal(app: FastifyInstance) {
  return async (request: FastifyRequest) => {
    const local = app.config.DEV_OUTBOX_PUBLIC || LOOPBACK.test(request.socket.remoteAddress ?? '');
    if (!local || app.config.TRUST_PROXY !== false || proxied(request)) {
      throw detailError(403, 'The dev pages answer only on this machine, never through a proxy.', 'forbidden');
    }
  };
}

/** `/dev/outbox` (a page) and `/dev/outbox.json`: what the embedded mail and SMS adapters captured. */
export default async function outboxRoutes(app: FastifyInstance) {
  const onRequest = requireLocal(app);
  app.get('/dev/outbox.json', { onRequest }, async (_request, reply) => {
    return reply.header('cache-control', 'no-store').send({
      emails: app.outbox.emails,
      sms: app.outbox.sms.map(({ to, body, status, sent_at }) => ({ to, body, status, sent_at })),
    });
  });

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
<pre>${linkify(message.body)}</pre></article>`,
      )
      .join('\n');
    const body = `<h1>Dev outbox</h1>
<p>Messages captured by the embedded mail and SMS adapters, newest first. Configure SMTP and Twilio to send for real.</p>
<h2>SMS (${app.outbox.sms.length})</h2>${sms || '<p>None yet.</p>'}
<h2>E-mail (${app.outbox.emails.length})</h2>${emails || '<p>None yet.</p>'}`;
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page('Dev outbox', body));
  });
}

function linkify(text: string): string {
  return escapeHtml(text).replace(/https?:\/\/[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`);
}
