import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, renderApp, setupAppTests, signIn } from './helpers';

setupAppTests();

function stubAssign() {
  const assign = vi.fn();
  vi.stubGlobal('location', { ...window.location, assign, origin: window.location.origin });
  return assign;
}

describe('Pricing', () => {
  it('shows basic at 3 € and premium at 5 € a month, and the SMS cost', () => {
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
    fakeApi({ 'POST /api/billing/checkout/': { status: 400, body: { error: 'Plano desconhecido.' } } });
    renderApp('/pricing');
    fireEvent.click(screen.getByRole('button', { name: 'Escolher Básico' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Plano desconhecido.');
  });

  it('says "Payment error! Are you logged in?" in English when the call fails without an error field', async () => {
    fakeApi({ 'POST /api/billing/checkout/': { status: 401, body: { detail: 'x' } } });
    renderApp('/pricing');
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    fireEvent.click(screen.getByRole('button', { name: 'Choose Basic' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Payment error! Are you logged in?');
  });
});

describe('Trial info', () => {
  it('explains the trial; its start button is a premium checkout', async () => {
    const assign = stubAssign();
    const { calls } = fakeApi({ 'POST /api/billing/checkout/': { body: { url: '/dev/checkout/t1' } } });
    renderApp('/trial-info');
    expect(screen.getByText(/É preciso um cartão/)).toBeInTheDocument();
    expect(screen.getByText(/a menos que cancele/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Voltar' })).toHaveAttribute('href', '/');
    fireEvent.click(screen.getByRole('button', { name: 'Começar o teste' }));
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith('/dev/checkout/t1'));
    expect(calls[0]!.body).toEqual({ plan: 'premium' });
  });

  it('says "Failed to activate trial." in English', async () => {
    fakeApi({ 'POST /api/billing/checkout/': { status: 500, body: {} } });
    renderApp('/trial-info');
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    fireEvent.click(screen.getByRole('button', { name: 'Start the trial' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to activate trial.');
  });
});

describe('Legal and privacy', () => {
  it('terms say plainly Alerta does not replace 112 or 911, with a back button', () => {
    renderApp('/legal');
    expect(screen.getByRole('heading', { name: 'O Alerta não substitui o 112 nem o 911' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Voltar' })).toHaveAttribute('href', '/');
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
