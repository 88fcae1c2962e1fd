import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { PublicConfig } from '../../../common/api/config';
import { FALLBACK_CONFIG } from '../../../src/api/config';
import i18n from '../../../src/i18n';
import { fakeApi, renderApp, setupAppTests, signIn, user } from './helpers';

setupAppTests();

/**
 * A server configured with TRIAL_DAYS=5, BASIC_CONTACT_LIMIT=4, PREMIUM_CONTACT_LIMIT=12 and other prices;
 * the rest as the defaults the app falls back on.
 */
const SERVER: PublicConfig = {
  ...FALLBACK_CONFIG,
  trial_days: 5,
  plans: {
    basic: { ...FALLBACK_CONFIG.plans.basic, price_eur: 4, contact_limit: 4 },
    premium: { ...FALLBACK_CONFIG.plans.premium, price_eur: 7.5, contact_limit: 12 },
  },
  sms_price_eur: 0.1,
};

describe('the server’s prices, limits and trial length', () => {
  it('Pricing shows them in Portuguese and English', async () => {
    fakeApi({ 'GET /api/config/': { body: SERVER } });
    renderApp('/pricing');
    expect(await screen.findByText('Até 4 contactos de emergência')).toBeInTheDocument();
    expect(screen.getByText('Até 12 contactos de emergência')).toBeInTheDocument();
    expect(screen.getByText(/^4\s€ \/ mês$/)).toBeInTheDocument();
    expect(screen.getByText(/^7,50\s€ \/ mês$/)).toBeInTheDocument();
    expect(screen.getByText(/custa mais 0,10\s€/)).toBeInTheDocument();
    expect(
      screen.getByText(
        /^Se nenhum contacto responder a um alerta, o Alerta telefona-lhes .* Cada chamada custa o mesmo que uma mensagem: 0,10\s€\.$/,
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('A primeira subscrição Premium inclui 5 dias de teste gratuito (cartão necessário).'));
    expect(screen.queryByText(/Até 3 |3 dias/)).toBeNull();

    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText('Up to 4 emergency contacts')).toBeInTheDocument();
    expect(screen.getByText('Up to 12 emergency contacts')).toBeInTheDocument();
    expect(screen.getByText('€4 / month')).toBeInTheDocument();
    expect(screen.getByText('€7.50 / month')).toBeInTheDocument();
    expect(screen.getByText(/costs an extra €0\.10/)).toBeInTheDocument();
    expect(
      screen.getByText(
        /^If no contact answers an alert, Alerta phones them .* Each call costs the same as one message: €0\.10\.$/,
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText('The first Premium subscription includes a 5-day free trial (card required).'),
    ).toBeInTheDocument();
  });

  it('Pricing tells a subscriber how many contacts Basic alerts', async () => {
    signIn();
    fakeApi({
      'GET /api/config/': { body: SERVER },
      'GET /api/users/me/': { body: user({ has_premium: true, plan: 'premium', contact_limit: 12 }) },
    });
    renderApp('/pricing');
    expect(await screen.findByText(/No Básico, os alertas vão para os 4 primeiros contactos/)).toBeInTheDocument();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText(/On Basic, alerts go to your first 4 contacts/)).toBeInTheDocument();
  });

  it('the trial page shows them in Portuguese and English', async () => {
    fakeApi({ 'GET /api/config/': { body: SERVER } });
    renderApp('/trial-info');
    expect(await screen.findByRole('heading', { name: 'Teste gratuito de 5 dias' })).toBeInTheDocument();
    expect(
      screen.getByText('Experimente o Premium durante 5 dias: até 12 contactos e localização GPS nos alertas.'),
    ).toBeInTheDocument();
    expect(screen.getByText(/^Ao fim de 5 dias o teste passa/)).toBeInTheDocument();
    expect(screen.getByText(/^Cada SMS enviado custa 0,10\s€ por contacto\.$/)).toBeInTheDocument();

    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('heading', { name: '5-day free trial' })).toBeInTheDocument();
    expect(
      screen.getByText('Try Premium for 5 days: up to 12 contacts and GPS location in your alerts.'),
    ).toBeInTheDocument();
    expect(screen.getByText(/^After 5 days the trial becomes/)).toBeInTheDocument();
    expect(screen.getByText('Each SMS sent costs €0.10 per contact.')).toBeInTheDocument();
  });

  it('the trial page offers a used-up trial at the server’s premium price', async () => {
    signIn();
    fakeApi({
      'GET /api/config/': { body: SERVER },
      'GET /api/users/me/': { body: user({ has_used_trial: true, trial_start: '2026-10-01T00:00:00Z' }) },
    });
    renderApp('/trial-info');
    expect(await screen.findByRole('button', { name: /^Subscrever o Premium \(7,50\s€\/mês\)$/ })).toBeInTheDocument();
  });

  it('a one-day trial is said in the singular', async () => {
    fakeApi({ 'GET /api/config/': { body: { ...SERVER, trial_days: 1 } } });
    renderApp('/trial-info');
    expect(await screen.findByRole('heading', { name: 'Teste gratuito de 1 dia' })).toBeInTheDocument();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText(/^After 1 day the trial becomes/)).toBeInTheDocument();
  });

  it('are fetched once, however many pages show them', async () => {
    const { calls } = fakeApi({ 'GET /api/config/': { body: SERVER } });
    renderApp('/trial-info');
    expect(await screen.findByRole('heading', { name: 'Teste gratuito de 5 dias' })).toBeInTheDocument();
    fireEvent.click(screen.getByRole('link', { name: 'Preços' }));
    expect(await screen.findByText('Até 4 contactos de emergência')).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/config/')).toHaveLength(1);
  });

  it('until they arrive, and when the server cannot be reached, the defaults are shown; a later page asks again', async () => {
    let answer: { status: number; body?: unknown } = { status: 503 };
    const { calls } = fakeApi({ 'GET /api/config/': () => answer });
    const first = renderApp('/trial-info');
    expect(screen.getByRole('heading', { name: 'Teste gratuito de 3 dias' })).toBeInTheDocument();
    await vi.waitFor(() => expect(calls.filter((call) => call.path === '/api/config/')).toHaveLength(1));
    expect(screen.getByText(/durante 3 dias: até 10 contactos/)).toBeInTheDocument();
    first.unmount();

    answer = { status: 200, body: SERVER };
    renderApp('/trial-info');
    expect(await screen.findByRole('heading', { name: 'Teste gratuito de 5 dias' })).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/config/')).toHaveLength(2);
  });
});
