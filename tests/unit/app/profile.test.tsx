import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { User } from '../../../src/api/types';
import { fakeApi, renderApp, settle, setupAppTests, signIn, user } from './helpers';

setupAppTests();

const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Opens /setup with a fake /me that applies PATCH bodies, or answers `refuse` when given. */
async function openSetup(initial: Partial<User> = {}, refuse?: Record<string, unknown>) {
  signIn();
  let me: User = { ...user({ has_premium: true, token: 'tok', contact_limit: 10 }), ...initial };
  const fake = fakeApi({
    'GET /api/users/me/': () => ({ body: me }),
    'PATCH /api/users/me/': (_request, body) => {
      if (refuse) return { status: 400, body: refuse };
      me = { ...me, ...(body as Partial<User>) };
      return { body: me };
    },
    'GET /api/emergency/contacts/': { body: [] },
  });
  renderApp('/setup');
  await screen.findByRole('heading', { name: 'Configurar contactos' });
  await settle();
  const panel = within(screen.getByRole('region', { name: 'O que os seus contactos veem' }));
  return { fake, panel };
}

describe('Setup: what the contacts see', () => {
  it('saves the display name and time zone, and says which name contacts will see', async () => {
    const { fake, panel } = await openSetup({ time_zone: 'Europe/Lisbon' });
    expect(panel.getByText(/dizem «ana»/)).toBeInTheDocument();
    const zone = panel.getByLabelText('O seu fuso horário') as HTMLSelectElement;
    expect(zone.value).toBe('Europe/Lisbon');
    fireEvent.change(panel.getByLabelText('O seu nome'), { target: { value: 'Zé Açoriano' } });
    expect(panel.getByText(/dizem «Zé Açoriano»/)).toBeInTheDocument();
    fireEvent.change(zone, { target: { value: 'America/New_York' } });
    fireEvent.click(panel.getByRole('button', { name: 'Guardar' }));
    expect(await screen.findByText('Guardado: é isto que os seus contactos veem.')).toBeInTheDocument();
    const patch = fake.calls.find((call) => call.method === 'PATCH');
    expect(patch?.body).toEqual({ display_name: 'Zé Açoriano', time_zone: 'America/New_York' });
  });

  it('checks the name with the shared rules before sending, and shows the server’s refusals under the fields', async () => {
    const { fake, panel } = await openSetup(
      {},
      {
        time_zone: ['"X" is not a known time zone.'],
        code: 'invalid_time_zone',
        codes: { time_zone: 'invalid_time_zone' },
      },
    );
    fireEvent.change(panel.getByLabelText('O seu nome'), { target: { value: '12345' } });
    fireEvent.click(panel.getByRole('button', { name: 'Guardar' }));
    expect(
      await panel.findByText('O nome deve ter 2 a 40 caracteres: letras, espaços, apóstrofos, hífenes e pontos.'),
    ).toBeInTheDocument();
    fireEvent.change(panel.getByLabelText('O seu nome'), { target: { value: 'www.example' } });
    fireEvent.click(panel.getByRole('button', { name: 'Guardar' }));
    expect(await panel.findByText('O nome não pode ser um endereço web.')).toBeInTheDocument();
    expect(fake.calls.some((call) => call.method === 'PATCH')).toBe(false);

    fireEvent.change(panel.getByLabelText('O seu nome'), { target: { value: 'Maria' } });
    fireEvent.click(panel.getByRole('button', { name: 'Guardar' }));
    expect(await panel.findByText('Escolha um fuso horário da lista.')).toBeInTheDocument();
  });
});

describe('Login: the browser’s time zone', () => {
  it('is saved on an account that has none', async () => {
    const { calls } = fakeApi({
      'POST /api/users/auth/login/': { body: { access: 'a1', refresh: 'r1' } },
      'GET /api/users/me/': { body: user() },
      'PATCH /api/users/me/': (_request, body) => ({ body: { ...user(), ...(body as object) } }),
    });
    renderApp('/login');
    fireEvent.change(screen.getByLabelText('Nome de utilizador ou e-mail'), { target: { value: 'ana' } });
    fireEvent.change(screen.getByLabelText('Palavra-passe'), { target: { value: 'segura123' } });
    fireEvent.click(screen.getByRole('button', { name: 'Entrar' }));
    await vi.waitFor(() => expect(calls.some((call) => call.method === 'PATCH')).toBe(true));
    expect(calls.find((call) => call.method === 'PATCH')?.body).toEqual({ time_zone: BROWSER_ZONE });
  });

  it('leaves a zone chosen in setup alone', async () => {
    const { calls } = fakeApi({
      'POST /api/users/auth/login/': { body: { access: 'a1', refresh: 'r1' } },
      'GET /api/users/me/': { body: { ...user(), time_zone: 'Asia/Tokyo' } },
    });
    renderApp('/login');
    fireEvent.change(screen.getByLabelText('Nome de utilizador ou e-mail'), { target: { value: 'ana' } });
    fireEvent.change(screen.getByLabelText('Palavra-passe'), { target: { value: 'segura123' } });
    fireEvent.click(screen.getByRole('button', { name: 'Entrar' }));
    expect(await screen.findByRole('heading', { name: 'Olá, ana' })).toBeInTheDocument();
    await settle();
    expect(calls.some((call) => call.method === 'PATCH')).toBe(false);
  });
});
