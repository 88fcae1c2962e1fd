import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { REGISTER_REDIRECT_MS } from '../../../common/constants';
import i18n from '../../../src/i18n';
import { fakeApi, fakeTimeouts, pathNow, renderApp, settle, setupAppTests } from './helpers';

setupAppTests();

const type = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const submit = () => screen.getByRole('button', { name: 'Criar conta' });

function fill(password = 'segura123', repeat = password) {
  type('Nome de utilizador', 'Ana.Silva');
  type('E-mail', ' Ana@Example.com ');
  type('Palavra-passe', password);
  type('Repetir palavra-passe', repeat);
}

describe('Register', () => {
  it('ticks the live checklist as the password improves', () => {
    renderApp('/register');
    const checklist = screen.getByRole('list', { name: 'Requisitos da palavra-passe' });
    const line = (text: string) => within(checklist).getByText(text).closest('li')!;
    // Nothing typed yet: no rule is ticked.
    for (const item of within(checklist).getAllByRole('listitem')) {
      expect(item).toHaveClass('todo');
      expect(item).toHaveTextContent('○');
      expect(item).toHaveTextContent('por cumprir');
    }
    type('Palavra-passe', 'qwerty');
    expect(line('Pelo menos 8 caracteres')).toHaveClass('todo');
    expect(line('Pelo menos um algarismo')).toHaveClass('todo');
    expect(line('Não é uma palavra-passe comum')).toHaveClass('todo');
    type('Palavra-passe', '11111111');
    expect(line('Pelo menos 8 caracteres')).toHaveClass('ok');
    expect(line('Não é uma palavra-passe comum')).toHaveClass('todo');
    expect(line('Não é só algarismos')).toHaveClass('todo');
    type('Palavra-passe', 'segura123');
    for (const item of within(checklist).getAllByRole('listitem')) expect(item).toHaveClass('ok');
    type('Palavra-passe', '');
    for (const item of within(checklist).getAllByRole('listitem')) expect(item).toHaveClass('todo');
  });

  it('ticks nothing for an empty password in English either', async () => {
    await i18n.changeLanguage('en');
    renderApp('/register');
    const checklist = screen.getByRole('list', { name: 'Password requirements' });
    for (const text of ['At least 8 characters', 'At least one digit', 'Not a common password', 'Not only digits']) {
      const item = within(checklist).getByText(text).closest('li')!;
      expect(item).toHaveClass('todo');
      expect(item).toHaveTextContent('not met yet');
    }
  });

  it('keeps submit disabled until terms are ticked and the checklist passes', () => {
    renderApp('/register');
    fill('curta1');
    expect(submit()).toBeDisabled();
    fireEvent.click(screen.getByRole('checkbox'));
    expect(submit()).toBeDisabled();
    fill('segura123');
    expect(submit()).toBeEnabled();
    fireEvent.click(screen.getByRole('checkbox'));
    expect(submit()).toBeDisabled();
  });

  it('links the terms and privacy, login and resend verification', () => {
    renderApp('/register');
    expect(screen.getByRole('link', { name: 'Termos de utilização' })).toHaveAttribute('href', '/legal');
    expect(screen.getByRole('link', { name: 'Política de privacidade' })).toHaveAttribute('href', '/privacy');
    expect(screen.getAllByRole('link', { name: 'Entrar' }).some((link) => link.getAttribute('href') === '/login')).toBe(
      true,
    );
    expect(screen.getByRole('link', { name: 'Não recebeu o e-mail de confirmação?' })).toHaveAttribute(
      'href',
      '/resend-verification',
    );
  });

  it('refuses different passwords without calling the server', () => {
    const { calls } = fakeApi({});
    renderApp('/register');
    fill('segura123', 'segura124');
    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(submit());
    expect(screen.getByText('As palavras-passe não coincidem.')).toBeInTheDocument();
    expect(calls).toHaveLength(0);
  });

  it('requires the e-mail address before sending anything', async () => {
    const { calls } = fakeApi({});
    renderApp('/register');
    fill();
    type('E-mail', '  ');
    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(submit());
    await settle();
    expect(screen.getByText('Indique o seu e-mail: confirma a conta e avisa-o de cada alerta.')).toBeInTheDocument();
    expect(screen.getByLabelText('E-mail')).toBeRequired();
    expect(calls).toHaveLength(0);
  });

  it('sends the lowercased username and the e-mail, is disabled in flight, and goes to /verify-email after 1.5 s', async () => {
    fakeTimeouts();
    let release: () => void = () => {};
    const { calls } = fakeApi({
      'POST /api/users/registration/': () =>
        new Promise((resolve) => (release = () => resolve({ status: 201, body: {} }))),
    });
    renderApp('/register');
    fill();
    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(submit());
    await settle();
    expect(screen.getByRole('button', { name: 'A criar conta…' })).toBeDisabled();
    release();
    await settle();
    expect(screen.getByText(/Conta criada/)).toBeInTheDocument();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toEqual({
      username: 'ana.silva',
      email: 'Ana@Example.com',
      password1: 'segura123',
      password2: 'segura123',
      accept_terms: true,
    });
    act(() => vi.advanceTimersByTime(REGISTER_REDIRECT_MS - 1));
    expect(pathNow()).toBe('/register');
    act(() => vi.advanceTimersByTime(1));
    expect(pathNow()).toBe('/verify-email');
    expect(screen.getByRole('heading', { name: 'Confirme o seu e-mail' })).toBeInTheDocument();
  });

  it('shows server errors under their fields, translated', async () => {
    fakeApi({
      'POST /api/users/registration/': {
        status: 400,
        body: {
          username: ['A user with that username already exists.'],
          email: ['Enter a valid email address.'],
          code: 'username_exists',
          codes: { username: 'username_exists', email: 'invalid_email' },
        },
      },
    });
    renderApp('/register');
    fill();
    type('E-mail', 'not-an-email');
    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(submit());
    expect(await screen.findByText('Já existe um utilizador com este nome.')).toBeInTheDocument();
    expect(screen.getByText('Indique um endereço de e-mail válido.')).toBeInTheDocument();
    expect(screen.getByLabelText('Nome de utilizador')).toHaveAttribute('aria-invalid', 'true');
  });

  it('a password only the server’s list holds: the checklist agrees with the server’s "too common", in both languages', async () => {
    const tooCommon = {
      status: 400,
      body: {
        password1: ['This password is too common.'],
        code: 'password_too_common',
        codes: { password1: 'password_too_common' },
      },
    };
    const { calls } = fakeApi({ 'POST /api/users/registration/': tooCommon });
    renderApp('/register');
    const line = () =>
      within(screen.getByRole('list', { name: 'Requisitos da palavra-passe' }))
        .getByText('Não é uma palavra-passe comum')
        .closest('li')!;
    fill('Benfica1904');
    fireEvent.click(screen.getByRole('checkbox'));
    // The page's own short list does not know it.
    expect(line()).toHaveClass('ok');
    fireEvent.click(submit());
    expect(await screen.findByText('Esta palavra-passe é demasiado comum.')).toBeInTheDocument();
    expect(line()).toHaveClass('todo');
    expect(line()).toHaveTextContent('○');
    expect(line()).toHaveTextContent('por cumprir');
    expect(submit()).toBeDisabled();
    await act(() => i18n.changeLanguage('en'));
    const english = within(screen.getByRole('list', { name: 'Password requirements' }))
      .getByText('Not a common password')
      .closest('li')!;
    expect(english).toHaveClass('todo');
    expect(english).toHaveTextContent('not met yet');
    // Written otherwise it is the same common password; another one is judged afresh.
    type('Password', ' BENFICA1904 ');
    expect(english).toHaveClass('todo');
    type('Password', 'Benfica1904!');
    type('Repeat password', 'Benfica1904!');
    expect(english).toHaveClass('ok');
    expect(screen.getByRole('button', { name: 'Create account' })).toBeEnabled();
    expect(calls).toHaveLength(1);
  });

  it('says registration failed when the answer has no usable error', async () => {
    fakeApi({ 'POST /api/users/registration/': { status: 400, body: null } });
    renderApp('/register');
    fill();
    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(submit());
    expect(await screen.findByRole('alert')).toHaveTextContent('Ocorreu um erro desconhecido. Tente novamente.');
  });
});
