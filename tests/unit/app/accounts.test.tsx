import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY, RESEND_REDIRECT_MS, RESET_REDIRECT_MS } from '../../../common/constants';
import { useStore } from '../../../src/store';
import { fakeApi, fakeTimeouts, pathNow, renderApp, settle, setupAppTests, user } from './helpers';

setupAppTests();

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('Login', () => {
  it('lowercases the identifier, stores both tokens, loads the user and replaces history with /', async () => {
    const { calls } = fakeApi({
      'POST /api/users/auth/login/': { body: { access: 'a1', refresh: 'r1' } },
      'GET /api/users/me/': { body: user() },
    });
    renderApp('/login');
    type('Nome de utilizador ou e-mail', ' Ana@Example.com ');
    type('Palavra-passe', 'segura123');
    fireEvent.click(screen.getByRole('button', { name: 'Entrar' }));
    expect(await screen.findByRole('heading', { name: 'Olá, ana' })).toBeInTheDocument();
    expect(calls[0]!.body).toEqual({ username: 'ana@example.com', password: 'segura123' });
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBe('a1');
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBe('r1');
    expect(calls[1]!.headers.get('Authorization')).toBe('Bearer a1');
    expect(pathNow()).toBe('/');
  });

  it('says the e-mail is not verified, with the spec text in English', async () => {
    fakeApi({
      'POST /api/users/auth/login/': {
        status: 403,
        body: { detail: 'email_not_verified', code: 'email_not_verified' },
      },
    });
    renderApp('/login');
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    type('Username or e-mail', 'ana');
    type('Password', 'segura123');
    fireEvent.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Email not verified. Please confirm your email before logging in.',
    );
  });

  it('says the credentials are invalid', async () => {
    fakeApi({
      'POST /api/users/auth/login/': {
        status: 401,
        body: { detail: 'No active account found with the given credentials', code: 'no_active_account' },
      },
    });
    renderApp('/login');
    type('Nome de utilizador ou e-mail', 'ana');
    type('Palavra-passe', 'errada123');
    fireEvent.click(screen.getByRole('button', { name: 'Entrar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Credenciais inválidas. Verifique o nome de utilizador e a palavra-passe.',
    );
    expect(useStore.getState().access).toBeNull();
  });

  it('links forgot password and sign up', () => {
    renderApp('/login');
    expect(screen.getByRole('link', { name: 'Esqueceu-se da palavra-passe?' })).toHaveAttribute(
      'href',
      '/reset-password/',
    );
    expect(screen.getAllByRole('link', { name: 'Criar conta' }).at(-1)).toHaveAttribute('href', '/register');
  });
});

describe('Resend verification', () => {
  it('shows the invalid-link message from ?error=invalid', () => {
    renderApp('/resend-verification?error=invalid');
    expect(screen.getByRole('alert')).toHaveTextContent('A ligação de confirmação é inválida ou expirou.');
  });

  it('requires the e-mail', () => {
    const { calls } = fakeApi({});
    renderApp('/resend-verification');
    fireEvent.click(screen.getByRole('button', { name: 'Reenviar' }));
    expect(screen.getByText('Indique o seu e-mail.')).toBeInTheDocument();
    expect(calls).toHaveLength(0);
  });

  it('toasts success and goes to /login after 2 s', async () => {
    fakeTimeouts();
    const { calls } = fakeApi({ 'POST /api/users/resend-verification/': { body: { detail: 'ok' } } });
    renderApp('/resend-verification');
    type('E-mail', 'ana@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Reenviar' }));
    await settle();
    expect(calls[0]!.body).toEqual({ email: 'ana@example.com' });
    expect(useStore.getState().toasts).toHaveLength(1);
    act(() => vi.advanceTimersByTime(RESEND_REDIRECT_MS - 1));
    expect(pathNow()).toBe('/resend-verification');
    act(() => vi.advanceTimersByTime(1));
    expect(pathNow()).toBe('/login');
  });

  it('says resending failed', async () => {
    fakeApi({ 'POST /api/users/resend-verification/': { status: 500, body: {} } });
    renderApp('/resend-verification');
    type('E-mail', 'ana@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Reenviar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Não foi possível reenviar o e-mail.');
  });
});

describe('Password reset', () => {
  it('request: requires the e-mail, then confirms generically', async () => {
    const { calls } = fakeApi({ 'POST /api/users/reset-password/': { body: { detail: 'sent' } } });
    renderApp('/reset-password/');
    fireEvent.click(screen.getByRole('button', { name: 'Enviar ligação' }));
    expect(screen.getByText('Indique o seu e-mail.')).toBeInTheDocument();
    type('E-mail', 'ana@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Enviar ligação' }));
    expect(await screen.findByText(/Se houver uma conta com este e-mail/)).toBeInTheDocument();
    expect(calls[0]!.body).toEqual({ email: 'ana@example.com' });
  });

  it('request: shows the send error', async () => {
    fakeApi({
      'POST /api/users/reset-password/': {
        status: 400,
        body: {
          email: ['Enter a valid email address.'],
          detail: 'Enter a valid email address.',
          code: 'invalid_email',
          codes: { email: 'invalid_email' },
        },
      },
    });
    renderApp('/reset-password/');
    type('E-mail', 'ana@');
    fireEvent.click(screen.getByRole('button', { name: 'Enviar ligação' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Indique um endereço de e-mail válido.');
  });

  it('confirm: both fields required and equal', () => {
    const { calls } = fakeApi({});
    renderApp('/reset-password-confirm/u1/tok');
    fireEvent.click(screen.getByRole('button', { name: 'Guardar palavra-passe' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Preencha os dois campos.');
    type('Nova palavra-passe', 'segura123');
    type('Repetir nova palavra-passe', 'segura124');
    fireEvent.click(screen.getByRole('button', { name: 'Guardar palavra-passe' }));
    expect(screen.getByRole('alert')).toHaveTextContent('As palavras-passe não coincidem.');
    expect(calls).toHaveLength(0);
  });

  it('confirm: sends uid and token, shows success and goes to /login after 2.5 s', async () => {
    fakeTimeouts();
    const { calls } = fakeApi({ 'POST /api/users/reset-password-confirm/': { body: { detail: 'ok' } } });
    renderApp('/reset-password-confirm/u1/tok-2');
    type('Nova palavra-passe', 'segura123');
    type('Repetir nova palavra-passe', 'segura123');
    fireEvent.click(screen.getByRole('button', { name: 'Guardar palavra-passe' }));
    await settle();
    expect(calls[0]!.body).toEqual({
      uid: 'u1',
      token: 'tok-2',
      new_password1: 'segura123',
      new_password2: 'segura123',
    });
    expect(screen.getByRole('status')).toHaveTextContent('Palavra-passe alterada.');
    act(() => vi.advanceTimersByTime(RESET_REDIRECT_MS - 1));
    expect(pathNow()).toBe('/reset-password-confirm/u1/tok-2');
    act(() => vi.advanceTimersByTime(1));
    expect(pathNow()).toBe('/login');
  });

  it.each([
    [{ detail: 'Invalid or expired token.', code: 'invalid_token' }, 'A ligação é inválida ou expirou. Peça uma nova.'],
    [{ detail: 'Invalid user.', code: 'invalid_user' }, 'Utilizador inválido.'],
    [
      {
        new_password1: ['This password is too common.'],
        detail: 'This password is too common.',
        code: 'password_too_common',
        codes: { new_password1: 'password_too_common' },
      },
      'Esta palavra-passe é demasiado comum.',
    ],
    [null, 'Erro ao redefinir a palavra-passe. Verifique os dados.'],
  ])('confirm: maps %j', async (body, text) => {
    fakeApi({ 'POST /api/users/reset-password-confirm/': { status: 400, body } });
    renderApp('/reset-password-confirm/u1/tok');
    type('Nova palavra-passe', 'segura123');
    type('Repetir nova palavra-passe', 'segura123');
    fireEvent.click(screen.getByRole('button', { name: 'Guardar palavra-passe' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
  });
  it('confirm: after the server’s "too common" the checklist no longer ticks "not a common password"', async () => {
    fakeApi({
      'POST /api/users/reset-password-confirm/': {
        status: 400,
        body: {
          new_password1: ['This password is too common.'],
          code: 'password_too_common',
          codes: { new_password1: 'password_too_common' },
        },
      },
    });
    renderApp('/reset-password-confirm/u1/tok');
    const line = () => screen.getByText('Não é uma palavra-passe comum').closest('li')!;
    type('Nova palavra-passe', 'Benfica1904');
    type('Repetir nova palavra-passe', 'Benfica1904');
    expect(line()).toHaveClass('ok');
    fireEvent.click(screen.getByRole('button', { name: 'Guardar palavra-passe' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Esta palavra-passe é demasiado comum.');
    expect(line()).toHaveClass('todo');
  });
});

describe('Notices', () => {
  it('verify-email and email-confirmed offer a login button', () => {
    renderApp('/verify-email');
    expect(screen.getByRole('heading', { name: 'Confirme o seu e-mail' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ir para a entrada' })).toHaveAttribute('href', '/login');
  });

  it('email-confirmed offers a login button', () => {
    renderApp('/email-confirmed');
    expect(screen.getByRole('heading', { name: 'E-mail confirmado' })).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'Entrar' }).at(-1)).toHaveAttribute('href', '/login');
  });

  it('cancel is in Portuguese, and in English when chosen', () => {
    renderApp('/cancel');
    expect(screen.getByRole('heading', { name: 'Pagamento cancelado' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Voltar ao início' })).toHaveAttribute('href', '/');
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    expect(screen.getByRole('heading', { name: 'Payment cancelled' })).toBeInTheDocument();
  });
});
