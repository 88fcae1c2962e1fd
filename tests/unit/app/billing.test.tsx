import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Profile } from '../../../src/api/types';
import i18n from '../../../src/i18n';
import { fakeApi, renderApp, setupAppTests, signIn, user } from './helpers';

setupAppTests();

function stubAssign() {
  const assign = vi.fn();
  vi.stubGlobal('location', { ...window.location, assign, origin: window.location.origin });
  return assign;
}

describe('Pricing', () => {
  it('shows basic at 3 € and premium at 5 € a month, and the SMS cost (the defaults, with no answer from the server)', () => {
    fakeApi({});
    renderApp('/pricing');
    expect(screen.getByRole('heading', { name: 'Básico' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Premium' })).toBeInTheDocument();
    expect(screen.getByText(/^3\s€ \/ mês$/)).toBeInTheDocument();
    expect(screen.getByText(/^5\s€ \/ mês$/)).toBeInTheDocument();
    expect(screen.getByText('Até 3 contactos de emergência')).toBeInTheDocument();
    expect(screen.getByText('Localização GPS no alerta')).toBeInTheDocument();
    expect(screen.getByText(/custa mais 0,08\s€/)).toBeInTheDocument();
  });

  it('sets a loading state, then redirects to the checkout url', async () => {
    signIn();
    const assign = stubAssign();
    let release: () => void = () => {};
    const { calls } = fakeApi({
      'GET /api/users/me/': { status: 500 },
      'POST /api/billing/checkout/': () =>
        new Promise((resolve) => (release = () => resolve({ body: { url: '/dev/checkout/abc' } }))),
    });
    renderApp('/pricing');
    fireEvent.click(screen.getByRole('button', { name: 'Escolher Premium' }));
    expect(await screen.findByRole('button', { name: 'A abrir o pagamento…' })).toBeDisabled();
    release();
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('/dev/checkout/abc'));
    expect(calls.find((call) => call.path === '/api/billing/checkout/')?.body).toEqual({ plan: 'premium' });
  });

  it('shows the answer’s error field, else the spec message', async () => {
    signIn();
    fakeApi({ 'POST /api/billing/checkout/': { status: 400, body: { error: 'Plano desconhecido.' } } });
    renderApp('/pricing');
    fireEvent.click(screen.getByRole('button', { name: 'Escolher Básico' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Plano desconhecido.');
  });

  it('says "Payment error! Are you logged in?" in English when the call fails without an error field', async () => {
    signIn();
    fakeApi({ 'POST /api/billing/checkout/': { status: 400, body: { detail: 'x' } } });
    renderApp('/pricing');
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    fireEvent.click(screen.getByRole('button', { name: 'Choose Basic' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Payment error! Are you logged in?');
  });

  it.each([[{}], [{ url: '' }], [{ url: 'javascript:alert(1)' }]])(
    'an answer %j without a usable url is said, in both languages, and the browser stays',
    async (body) => {
      signIn();
      const assign = stubAssign();
      fakeApi({ 'GET /api/users/me/': { body: user() }, 'POST /api/billing/checkout/': { body } });
      renderApp('/pricing');
      fireEvent.click(await screen.findByRole('button', { name: 'Escolher Premium' }));
      expect(await screen.findByRole('alert')).toHaveTextContent(
        'O serviço de pagamentos não está disponível. Tente novamente.',
      );
      expect(screen.getByRole('button', { name: 'Escolher Premium' })).toBeEnabled();
      await act(() => i18n.changeLanguage('en'));
      expect(screen.getByRole('alert')).toHaveTextContent('The payment service is unavailable. Please try again.');
      expect(assign).not.toHaveBeenCalled();
    },
  );
});

describe('Pricing for a subscriber', () => {
  it('marks the current plan and upgrades basic → premium through a plan change, in both languages', async () => {
    signIn();
    let plan: 'basic' | 'premium' = 'basic';
    const { calls } = fakeApi({
      'GET /api/users/me/': () => ({
        body: user({ has_premium: true, plan, contact_limit: plan === 'basic' ? 3 : 10 }),
      }),
      'POST /api/billing/plan/': (_request, body) => {
        plan = (body as { plan: 'premium' }).plan;
        return { body: { plan } };
      },
    });
    renderApp('/pricing');
    expect(await screen.findByRole('button', { name: 'O seu plano atual' })).toBeDisabled();
    fireEvent.click(screen.getByRole('button', { name: 'Mudar para Premium' }));
    expect(await screen.findByText('O seu plano é agora o Premium.')).toBeInTheDocument();
    expect(calls.find((call) => call.path === '/api/billing/plan/')?.body).toEqual({ plan: 'premium' });
    expect(calls.some((call) => call.path === '/api/billing/checkout/')).toBe(false);
    await act(() => i18n.changeLanguage('en'));
    expect(await screen.findByRole('button', { name: 'Switch to Basic' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Your current plan' })).toBeDisabled();
  });

  it.each([
    ['pt', 'already_subscribed', 'Já tem uma subscrição ativa. Mude de plano nos Preços ou gira-a em Configurar.'],
    [
      'en',
      'already_subscribed',
      'You already have an active subscription. Change plan on Pricing or manage it from Setup.',
    ],
    ['pt', 'payment_provider_error', 'O serviço de pagamentos não está disponível. Tente novamente.'],
    ['en', 'payment_provider_error', 'The payment service is unavailable. Please try again.'],
    ['pt', 'same_plan', 'Já está neste plano.'],
    ['en', 'no_subscription', 'You have no subscription yet. Choose a plan first.'],
  ])('says the server’s %s %s in the person’s language, never its English text', async (language, code, text) => {
    await i18n.changeLanguage(language);
    signIn();
    fakeApi({ 'POST /api/billing/checkout/': { status: 400, body: { error: 'English server text.', code } } });
    renderApp('/pricing');
    fireEvent.click(screen.getByRole('button', { name: language === 'pt' ? 'Escolher Básico' : 'Choose Basic' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
  });
});

describe('Trial info', () => {
  const trialPage = async (fields: Partial<Profile>) => {
    signIn();
    const fake = fakeApi({
      'GET /api/users/me/': { body: user(fields) },
      'POST /api/billing/checkout/': { body: { url: '/dev/checkout/t2' } },
    });
    renderApp('/trial-info');
    await screen.findByRole('status');
    return fake;
  };

  it('trial used up: says Premium is charged at once, and its button says so, in both languages', async () => {
    const assign = stubAssign();
    const { calls } = await trialPage({ has_used_trial: true, trial_start: '2026-10-01T00:00:00Z' });
    expect(screen.getByRole('status')).toHaveTextContent(
      /^Já usou o seu teste gratuito\. Se subscrever o Premium agora, é cobrado de imediato: 5\s€\/mês\.$/,
    );
    expect(screen.queryByText(/nada é cobrado/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Começar o teste' })).toBeNull();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('status')).toHaveTextContent(
      'You have already used your free trial. Subscribing to Premium now is charged at once: €5/month.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Subscribe to Premium (€5/month)' }));
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('/dev/checkout/t2'));
    expect(calls.find((call) => call.path === '/api/billing/checkout/')?.body).toEqual({ plan: 'premium' });
  });

  it('trial in progress: the days left and what follows, no checkout', async () => {
    await trialPage({
      has_premium: true,
      is_in_trial: true,
      trial_days_left: 2,
      has_used_trial: true,
      plan: 'premium',
    });
    expect(screen.getByRole('status')).toHaveTextContent(
      /^O seu teste gratuito está a decorrer: restam 2 dias\. Depois passa a Premium pago, 5\s€\/mês, a menos que cancele antes\.$/,
    );
    expect(screen.getByRole('link', { name: 'Gerir subscrição' })).toHaveAttribute('href', '/setup');
    expect(screen.queryByRole('button', { name: /Começar|Subscrever/ })).toBeNull();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('status')).toHaveTextContent(
      'Your free trial is running: 2 days left. After it, it becomes paid Premium at €5/month unless you cancel before.',
    );
  });

  it('subscribed: no trial for subscribers, a link to change plan', async () => {
    await trialPage({ has_premium: true, has_used_trial: true, plan: 'basic', contact_limit: 3 });
    expect(screen.getByRole('status')).toHaveTextContent(
      'Já tem o plano Básico: o teste gratuito é para quem ainda não subscreveu.',
    );
    expect(screen.getByRole('link', { name: 'Mudar de plano' })).toHaveAttribute('href', '/pricing');
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('status')).toHaveTextContent(
      'You already have the Basic plan: the free trial is for people who have not subscribed yet.',
    );
  });

  it('explains the trial; its start button is a premium checkout', async () => {
    signIn();
    const assign = stubAssign();
    const { calls } = fakeApi({ 'POST /api/billing/checkout/': { body: { url: '/dev/checkout/t1' } } });
    renderApp('/trial-info');
    expect(screen.getByText(/É preciso um cartão/)).toBeInTheDocument();
    expect(screen.getByText(/a menos que cancele/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Voltar' })).toHaveAttribute('href', '/');
    fireEvent.click(screen.getByRole('button', { name: 'Começar o teste' }));
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('/dev/checkout/t1'));
    expect(calls.find((call) => call.path === '/api/billing/checkout/')?.body).toEqual({ plan: 'premium' });
  });

  it('says "Failed to activate trial." in English', async () => {
    signIn();
    fakeApi({ 'POST /api/billing/checkout/': { status: 500, body: {} } });
    renderApp('/trial-info');
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    fireEvent.click(screen.getByRole('button', { name: 'Start the trial' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to activate trial.');
  });
});

describe('Legal and privacy', () => {
  it('terms say plainly Alerta does not replace 112 (112 or 911 in English), with a back button', async () => {
    renderApp('/legal');
    expect(screen.getByRole('heading', { name: 'O Alerta não substitui o 112' })).toBeInTheDocument();
    expect(screen.getByText(/Em perigo imediato, ligue sempre 112\. O envio/)).toBeInTheDocument();
    expect(screen.queryByText(/911/)).toBeNull();
    expect(screen.getByRole('link', { name: 'Voltar' })).toHaveAttribute('href', '/');
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('heading', { name: 'Alerta does not replace 112 or 911' })).toBeInTheDocument();
    expect(screen.getByText(/In immediate danger, always call 112 \(or 911\)\./)).toBeInTheDocument();
  });

  it('privacy has every section, the location rules and the last update, in both languages', () => {
    renderApp('/privacy');
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    for (const name of ['Data we collect', 'How we use data', 'Third parties', 'Security', 'Your rights']) {
      expect(screen.getByRole('heading', { name })).toBeInTheDocument();
    }
    expect(screen.getByText(/only sent with an alert/)).toBeInTheDocument();
    expect(screen.getByText(/deleted after 30 days/)).toBeInTheDocument();
    expect(screen.getByText(/24 hours after the alert ends/)).toBeInTheDocument();
    expect(screen.getByText(/SMS provider/)).toBeInTheDocument();
    expect(screen.getByText(/payment provider \(Stripe\)/)).toBeInTheDocument();
    expect(screen.getByText(/^Last updated:/)).toBeInTheDocument();
  });
});
