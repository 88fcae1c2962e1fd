import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY, HOME_LOADING_MS, REFRESH_TOKEN_KEY } from '../../../common/constants';
import type { Profile } from '../../../src/api/types';
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

  it('clears the session when the user cannot be loaded at start', async () => {
    signIn();
    fakeApi({ 'GET /api/users/me/': { status: 500, body: {} } });
    renderApp('/');
    expect(await screen.findByRole('link', { name: 'Criar conta' })).toBeInTheDocument();
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
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
