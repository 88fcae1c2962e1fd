import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PlanName } from '../../db/schema.js';
import { ApiError } from '../../lib/errors.js';
import { escapeHtml, page } from '../../lib/html.js';
import type { SimulatedPayments } from '../../providers/payments/simulated.js';
import { requireLocal } from '../dev/index.js';
import { planTerms } from './plans.js';
import {
  applyPortalAction,
  cancelSimulatedCheckout,
  openCheckout,
  type PortalAction,
  paySimulatedCheckout,
  periodStart,
  settledSubscription,
  smsUsageSince,
} from './simulated.js';
import { isInTrial } from './subscriptions.js';

const SUCCESS_URL = '/?checkout=success';
const CANCEL_URL = '/cancel';

/** A browser form post (or a page request) gets redirects and pages; anything else gets JSON. */
const fromBrowser = (request: FastifyRequest) =>
  String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') ||
  String(request.headers.accept ?? '').includes('text/html');

const html = (reply: FastifyReply, status: number, title: string, body: string) =>
  reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page(title, body));

/** An amount in euros as both languages of these pages can read it: "3 €", "0.08 €". */
const euros = (value: number) => `${Number.isInteger(value) ? value : value.toFixed(2)} €`;

const date = (ms: number | null) => (ms === null ? '—' : new Date(ms).toISOString().slice(0, 16).replace('T', ' '));

/**
 * The simulated provider's pages: `/dev/checkout/<id>` (Pay, Cancel) with their POST
 * shortcuts, and `/dev/portal` (change plan, cancel at period end, this period's SMS).
 */
export default async function devBillingRoutes(app: FastifyInstance) {
  // Paying here activates a plan: this machine only, never through a proxy.
  app.addHook('onRequest', requireLocal(app));
  await app.register(formbody);
  const payments = app.payments as SimulatedPayments;
  const price = (plan: PlanName) => euros(planTerms(app.config, plan).price_eur);
  const smsPrice = app.config.SMS_PRICE_EUR;

  app.get<{ Params: { id: string } }>('/dev/checkout/:id', async (request, reply) => {
    const checkout = await openCheckout(app, request.params.id).catch(() => undefined);
    if (!checkout) return html(reply, 404, 'Checkout', '<h1>Checkout não encontrado · Checkout not found</h1>');
    const id = escapeHtml(checkout.id);
    const trial = checkout.with_trial
      ? `<p><strong>${app.config.TRIAL_DAYS} dias grátis</strong>, depois ${price('premium')}/mês · <strong>${app.config.TRIAL_DAYS}-day free trial</strong>, then ${price('premium')}/month. Renova-se automaticamente salvo cancelamento · Renews automatically unless cancelled.</p>`
      : `<p>${price(checkout.plan)}/mês · ${price(checkout.plan)}/month</p>`;
    const state =
      checkout.status === 'open'
        ? `<form method="post" action="/dev/checkout/${id}/pay"><button class="primary" type="submit">Pagar · Pay</button></form>
<form method="post" action="/dev/checkout/${id}/cancel"><button class="secondary" type="submit">Cancelar · Cancel</button></form>`
        : `<p>Este checkout já está ${checkout.status === 'paid' ? 'pago' : 'cancelado'} · This checkout is already ${escapeHtml(checkout.status)}.</p><p><a href="/">Alerta</a></p>`;
    return html(
      reply,
      200,
      'Checkout',
      `<h1>Alerta ${escapeHtml(checkout.plan)}</h1>${trial}
<p class="meta">Pagamento simulado: nenhum cartão é cobrado · Simulated payment: no card is charged. SMS: ${euros(smsPrice)} cada · each.</p>${state}`,
    );
  });

  const finish =
    (act: typeof paySimulatedCheckout) =>
    async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
      try {
        const status = await act(app, request.params.id);
        const redirect = status === 'paid' ? SUCCESS_URL : CANCEL_URL;
        return fromBrowser(request) ? reply.redirect(redirect, 303) : { status, redirect };
      } catch (error) {
        if (!(error instanceof ApiError) || !fromBrowser(request)) throw error;
        const text = String(error.body.error ?? error.body.detail ?? 'Error');
        return html(reply, error.statusCode, 'Checkout', `<h1>${escapeHtml(text)}</h1><p><a href="/">Alerta</a></p>`);
      }
    };
  app.post('/dev/checkout/:id/pay', finish(paySimulatedCheckout));
  app.post('/dev/checkout/:id/cancel', finish(cancelSimulatedCheckout));

  app.get<{ Querystring: { session?: string } }>('/dev/portal', async (request, reply) => {
    const session = String(request.query.session ?? '');
    const userId = payments.portalUser(session);
    const expired =
      '<h1>Ligação expirada · Link expired</h1><p>Abra de novo a partir de Configuração · Open it again from <a href="/setup">Setup</a>.</p>';
    if (!userId) return html(reply, 404, 'Portal', expired);
    return html(reply, 200, 'Portal', await portalBody(app, userId, session, price));
  });

  app.post<{ Params: { action: string }; Body: { session?: string; plan?: string } }>(
    '/dev/portal/:action',
    async (request, reply) => {
      const session = String(request.body?.session ?? '');
      const userId = payments.portalUser(session);
      if (!userId) return html(reply, 404, 'Portal', '<h1>Ligação expirada · Link expired</h1>');
      const { action } = request.params;
      const plan = request.body?.plan;
      let change: PortalAction;
      if (action === 'plan' && (plan === 'basic' || plan === 'premium')) change = { type: 'plan', plan };
      else if (action === 'cancel' || action === 'resume') change = { type: action };
      else return html(reply, 400, 'Portal', '<h1>Pedido inválido · Invalid request</h1>');
      try {
        await applyPortalAction(app, userId, change);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const text = escapeHtml(String(error.body.error ?? error.body.detail));
        return html(reply, error.statusCode, 'Portal', `<h1>${text}</h1><p><a href="/setup">Alerta</a></p>`);
      }
      return reply.redirect(`/dev/portal?session=${encodeURIComponent(session)}`, 303);
    },
  );
}

async function portalBody(
  app: FastifyInstance,
  userId: string,
  session: string,
  price: (plan: PlanName) => string,
): Promise<string> {
  const smsPrice = app.config.SMS_PRICE_EUR;
  const now = app.clock.now();
  const subscription = await settledSubscription(app, userId);
  const back = '<p><a href="/setup">Voltar ao Alerta · Back to Alerta</a></p>';
  if (!subscription) return `<h1>Sem subscrição · No subscription</h1>${back}`;
  const usage = await smsUsageSince(app, userId, periodStart(subscription, now));
  const inTrial = isInTrial(subscription, now);
  const live = subscription.status !== 'canceled';
  const end = inTrial ? subscription.trial_end : subscription.current_period_end;
  const hidden = `<input type="hidden" name="session" value="${escapeHtml(session)}">`;
  const other = subscription.plan === 'premium' ? 'basic' : 'premium';
  const status = !live
    ? 'Terminada · Ended'
    : subscription.cancel_at_period_end
      ? `Termina a · Ends on ${date(end)}`
      : inTrial
        ? `Período experimental até · Trial until ${date(end)}`
        : `Renova a · Renews on ${date(end)}`;
  const actions = live
    ? `<form method="post" action="/dev/portal/plan">${hidden}<input type="hidden" name="plan" value="${other}">
<button class="secondary" type="submit">Mudar para ${other} · Switch to ${other} (${price(other)}/mês · month)</button></form>
${
  subscription.cancel_at_period_end
    ? `<form method="post" action="/dev/portal/resume">${hidden}<button class="primary" type="submit">Manter a subscrição · Keep my subscription</button></form>`
    : `<form method="post" action="/dev/portal/cancel">${hidden}<button class="primary" type="submit">Cancelar no fim do período · Cancel at period end</button></form>`
}`
    : '';
  return `<h1>A sua subscrição · Your subscription</h1>
<article><p>Plano · Plan: <strong>${escapeHtml(subscription.plan)}</strong> (${price(subscription.plan)}/mês · month)</p>
<p>Estado · Status: ${escapeHtml(status)}</p>
<p>SMS neste período · SMS this period: ${usage.billable} × ${smsPrice.toFixed(2)} € = ${(usage.billable * smsPrice).toFixed(2)} €${
    usage.free ? ` (+${usage.free} grátis · free: o primeiro alerta real · the first real alert)` : ''
  }</p></article>
${actions}${back}
<p class="meta">Portal simulado · Simulated portal.</p>`;
}
