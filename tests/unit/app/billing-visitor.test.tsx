import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../../src/i18n';
import { afterLogin } from '../../../src/lib/navigation';
import { fakeApi, pathNow, renderApp, setupAppTests, signIn, user } from './helpers';

setupAppTests();

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

/** The API a visitor meets: no session until they log in, then a user with no subscription. */
function visitorApi() {
  return fakeApi({
    'POST /api/billing/checkout/': { status: 401, body: { detail: 'Not authenticated.', code: 'not_authenticated' } },
    'POST /api/users/auth/login/': { body: { access: 'a1', refresh: 'r1' } },
    'GET /api/users/me/': { body: user() },
  });
}

async function logIn() {
  type('Nome de utilizador ou e-mail', 'ana');
  type('Palavra-passe', 'segura123');
  fireEvent.click(screen.getByRole('button', { name: 'Entrar' }));
}

describe('a visitor who is not logged in', () => {
  it('pressing a plan on /pricing goes to log in, never "your session has ended", and comes back after', async () => {
    const { calls } = visitorApi();
    renderApp('/pricing');
    fireEvent.click(screen.getByRole('button', { name: 'Escolher Premium' }));
    expect(await screen.findByRole('heading', { name: 'Entrar' })).toBeInTheDocument();
    expect(pathNow()).toBe('/login?next=%2Fpricing');
    expect(screen.queryByText(/sessão terminou/)).toBeNull();
    expect(calls.some((call) => call.path === '/api/billing/checkout/')).toBe(false);
    await logIn();
    expect(await screen.findByRole('heading', { name: 'Preços' })).toBeInTheDocument();
    expect(pathNow()).toBe('/pricing');
  });

  it('/pricing in English: the plan and the login link both lead to log in and back', async () => {
    visitorApi();
    renderApp('/pricing');
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('link', { name: 'Log in' })).toHaveAttribute('href', '/login?next=%2Fpricing');
    fireEvent.click(screen.getByRole('button', { name: 'Choose Basic' }));
    expect(await screen.findByRole('heading', { name: 'Log in' })).toBeInTheDocument();
    expect(screen.queryByText(/Your session has ended/)).toBeNull();
  });

  it('/trial-info offers the login; "Start the trial" goes to log in and back, in both languages', async () => {
    const { calls } = visitorApi();
    renderApp('/trial-info');
    expect(screen.getByText(/Para subscrever, entre primeiro na sua conta\./)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Entrar' })).toHaveAttribute('href', '/login?next=%2Ftrial-info');
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText(/To subscribe, log in to your account first\./)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Start the trial' }));
    expect(await screen.findByRole('heading', { name: 'Log in' })).toBeInTheDocument();
    expect(screen.queryByText(/Your session has ended/)).toBeNull();
    expect(calls.some((call) => call.path === '/api/billing/checkout/')).toBe(false);
    await act(() => i18n.changeLanguage('pt'));
    await logIn();
    expect(await screen.findByRole('button', { name: 'Começar o teste' })).toBeInTheDocument();
    expect(pathNow()).toBe('/trial-info');
    expect(screen.queryByText(/entre primeiro na sua conta/)).toBeNull();
  });

  it('the login goes back only to one of the app’s pages, never to another site', () => {
    expect(afterLogin('/pricing')).toBe('/pricing');
    expect(afterLogin('/trial-info')).toBe('/trial-info');
    expect(afterLogin('/setup?x=1')).toBe('/setup?x=1');
    for (const next of [null, '', 'https://evil.example/', '//evil.example/', '/\\evil.example', '/nope', '/login']) {
      expect(afterLogin(next)).toBe('/');
    }
  });
});

describe('the trial on /pricing', () => {
  it('is promised to a visitor, in both languages', async () => {
    fakeApi({});
    renderApp('/pricing');
    expect(screen.getByText(/inclui 3 dias de teste gratuito/)).toBeInTheDocument();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText(/includes a 3-day free trial/)).toBeInTheDocument();
  });

  it('is not promised to someone who used it: Premium is charged at once, in both languages', async () => {
    signIn();
    fakeApi({ 'GET /api/users/me/': { body: user({ has_used_trial: true, trial_start: '2026-10-01T00:00:00Z' }) } });
    renderApp('/pricing');
    expect(await screen.findByText(/^Já usou o seu teste gratuito\./)).toBeInTheDocument();
    expect(screen.queryByText(/dias de teste gratuito/)).toBeNull();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText(/^You have already used your free trial\./)).toBeInTheDocument();
    expect(screen.queryByText(/free trial \(card required\)/)).toBeNull();
  });
});
