import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY, HOME_LOADING_MS, REFRESH_TOKEN_KEY, USER_CACHE_KEY } from '../../../common/constants';
import type { Profile } from '../../../src/api/types';
import i18n from '../../../src/i18n';
import { useStore } from '../../../src/store';
import { fakeApi, fakeTimeouts, pathNow, renderApp, setupAppTests, signIn, user } from './helpers';

setupAppTests();

async function homeWith(fields: Partial<Profile>) {
  signIn();
  fakeApi({ 'GET /api/users/me/': { body: user(fields) } });
  renderApp('/');
  await screen.findByRole('heading', { name: 'Olá, ana' });
}

describe('Home', () => {
  it('shows a loading state for about 100 ms, then the logged-out welcome', async () => {
    fakeTimeouts();
    renderApp('/');
    expect(screen.getByRole('status')).toHaveTextContent('A carregar…');
    act(() => vi.advanceTimersByTime(HOME_LOADING_MS - 1));
    expect(screen.queryByRole('link', { name: 'Criar conta' })).toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByRole('link', { name: 'Entrar' })).toHaveAttribute('href', '/login');
    expect(screen.getByRole('link', { name: 'Criar conta' })).toHaveAttribute('href', '/register');
    expect(screen.getAllByRole('listitem').length).toBeGreaterThanOrEqual(3);
    expect(screen.getByText(/não substitui o 112/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'ajuda@alerta.app' })).toHaveAttribute('href', 'mailto:ajuda@alerta.app');
    expect(screen.getByText(/© \d{4} Alerta/)).toBeInTheDocument();
  });

  it('trial active: days left, no activate link', async () => {
    await homeWith({
      has_premium: true,
      is_in_trial: true,
      trial_days_left: 2,
      trial_start: '2026-11-20T00:00:00Z',
      has_used_trial: true,
      plan: 'premium',
    });
    expect(screen.getByText('Teste gratuito ativo: restam 2 dias.')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Ativar o teste gratuito' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Gerir contactos' })).toHaveAttribute('href', '/setup');
  });

  it('premium: the plan, no activate link', async () => {
    await homeWith({ has_premium: true, plan: 'basic' });
    expect(screen.getByText('Subscrição ativa: plano Básico.')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Ativar o teste gratuito' })).toBeNull();
  });

  it('trial ended: says so, no activate link', async () => {
    await homeWith({ trial_start: '2026-11-01T00:00:00Z', has_used_trial: true });
    expect(screen.getByText(/O seu teste gratuito terminou/)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Ativar o teste gratuito' })).toBeNull();
  });

  it('trial inactive: the activate-trial link to /trial-info', async () => {
    await homeWith({});
    expect(screen.getByText(/Ainda não tem uma subscrição ativa/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ativar o teste gratuito' })).toHaveAttribute('href', '/trial-info');
  });

  it('hides the activate-trial link once a trial was used, even with no trial start', async () => {
    await homeWith({ has_used_trial: true });
    expect(screen.queryByRole('link', { name: 'Ativar o teste gratuito' })).toBeNull();
  });

  it('logout clears both tokens and goes to /login', async () => {
    await homeWith({});
    fireEvent.click(screen.getByRole('button', { name: 'Sair' }));
    expect(await screen.findByRole('heading', { name: 'Entrar' })).toBeInTheDocument();
    expect(pathNow()).toBe('/login');
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBeNull();
    expect(useStore.getState().user).toBeNull();
  });

  it('keeps the session when the server fails at start: the last known home with a retry, in both languages', async () => {
    signIn();
    localStorage.setItem(USER_CACHE_KEY, JSON.stringify(user({ has_premium: true, plan: 'basic' })));
    let up = false;
    const { calls } = fakeApi({
      'GET /api/users/me/': () =>
        up ? { body: user({ has_premium: true, plan: 'premium' }) } : { status: 500, body: {} },
    });
    renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Olá, ana' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Não foi possível contactar o servidor. Mostramos os dados da sua última visita.',
    );
    expect(screen.getByText('Subscrição ativa: plano Básico.')).toBeInTheDocument();
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBe('access-1');
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBe('refresh-1');
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Could not reach the server. Showing your details from your last visit.',
    );
    up = true;
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Subscription active: Premium plan.')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(calls.filter((call) => call.path === '/api/users/me/')).toHaveLength(2);
  });

  it('with no network and nothing saved, says the account could not be loaded, in both languages', async () => {
    signIn();
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    renderApp('/');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Não foi possível contactar o servidor para carregar a sua conta.',
    );
    expect(screen.getByRole('button', { name: 'Tentar de novo' })).toBeInTheDocument();
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBe('access-1');
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('alert')).toHaveTextContent('Could not reach the server to load your account.');
  });

  it('a refresh that fails for lack of an answer keeps the session; only a refused one logs out', async () => {
    signIn();
    fakeApi({
      'GET /api/users/me/': { status: 401, body: { detail: 'Token is invalid or expired' } },
      'POST /api/users/auth/refresh/': { status: 503, body: {} },
    });
    renderApp('/');
    expect(await screen.findByRole('alert')).toHaveTextContent('Não foi possível contactar o servidor');
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBe('refresh-1');
  });

  it('logs out when the session is refused (a 401 after the refresh failed)', async () => {
    signIn();
    fakeApi({
      'GET /api/users/me/': { status: 401, body: { detail: 'Token is invalid or expired' } },
      'POST /api/users/auth/refresh/': { status: 401, body: { detail: 'Token is invalid or expired' } },
    });
    renderApp('/');
    await vi.waitFor(() => expect(pathNow()).toBe('/login'));
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
    expect(localStorage.getItem(USER_CACHE_KEY)).toBeNull();
  });

  it('logging out ends the session on the server, then clears both tokens', async () => {
    signIn();
    const { calls } = fakeApi({
      'GET /api/users/me/': { body: user() },
      'POST /api/users/auth/logout/': { status: 204 },
    });
    renderApp('/');
    fireEvent.click(await screen.findByRole('button', { name: 'Sair' }));
    await vi.waitFor(() => expect(pathNow()).toBe('/login'));
    const logout = calls.find((call) => call.path === '/api/users/auth/logout/');
    expect(logout?.headers.get('Authorization')).toBe('Bearer access-1');
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBeNull();
  });

  it('back from checkout: a success toast and the user fetched again', async () => {
    signIn();
    const { calls } = fakeApi({ 'GET /api/users/me/': { body: user({ has_premium: true, plan: 'premium' }) } });
    renderApp('/?checkout=success');
    expect(await screen.findByText('Pagamento concluído. A sua subscrição está ativa.')).toBeInTheDocument();
    await screen.findByRole('heading', { name: 'Olá, ana' });
    expect(calls.filter((call) => call.path === '/api/users/me/').length).toBeGreaterThanOrEqual(2);
    expect(pathNow()).toBe('/');
  });
});
