import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { dailyView } from '../../../src/alert/daily-test-fixtures';
import type { DailyView } from '../../../src/api/daily';
import type { Contact } from '../../../src/api/types';
import i18n from '../../../src/i18n';
import { DailyCheckin } from '../../../src/pages/setup/DailyCheckin';
import { fakeApi, renderApp, setupAppTests, signIn, user } from './helpers';

setupAppTests();

const OFF: DailyView = dailyView({ enabled: false, status: 'off', next_due_at: null });
const ON: DailyView = { ...OFF, enabled: true, status: 'waiting', next_due_at: '2099-12-01T10:00:00.000Z' };
const contact = (name: string) =>
  ({ id: name, name, phone_number: '+351912345678', relationship: '', alerted: true, state: 'invited' }) as Contact;

function openDaily(
  found: DailyView,
  contacts: Contact[] = [contact('Carla Mendes-Silva')],
  put: () => { status?: number; body?: unknown } = () => ({ body: found }),
) {
  signIn();
  const api = fakeApi({ 'GET /api/users/me/daily-checkin/': { body: found }, 'PUT /api/users/me/daily-checkin/': put });
  render(<DailyCheckin contacts={contacts} />);
  return api;
}

const sentence = () => screen.findByTestId('daily-sentence');
const grace = () => screen.getByLabelText(/^Minutos de tolerância|^Minutes of grace/);

describe('Setup: the daily check-in on a small phone, in both languages', () => {
  it('one contact “gets” the SMS (“recebe”), several “get” it', async () => {
    openDaily(ON);
    expect(await sentence()).toHaveTextContent(
      'Se não fizer o check-in até às 11:00, Carla Mendes-Silva recebe um SMS.',
    );
    await act(() => i18n.changeLanguage('en'));
    expect(await sentence()).toHaveTextContent('If you haven’t checked in by 11:00, Carla Mendes-Silva gets an SMS.');
  });

  it('while off, the sentence says nobody is alerted before it says what turning it on would do', async () => {
    openDaily(OFF);
    expect(await sentence()).toHaveTextContent(/^Desligado: ninguém é alertado\. Depois de o ativar e guardar: Todos/);
    await act(() => i18n.changeLanguage('en'));
    expect(await sentence()).toHaveTextContent(/^Off: nobody is alerted\. Once you turn it on and save: Every day/);
    fireEvent.click(screen.getByLabelText('Turn on the daily check-in'));
    expect(await sentence()).toHaveTextContent(/^Every day before 10:00\./);
  });

  it('its on/off is the register page’s checkbox, not a text field', async () => {
    openDaily(OFF);
    const box = await screen.findByLabelText('Ativar o check-in diário');
    expect(box).toHaveAttribute('type', 'checkbox');
    expect(box.parentElement).toHaveClass('check');
    expect(box.closest('.field')).toBeNull();
  });

  it('the grace says its bounds; one out of them is said by the field, sends nothing, and gives no alert time', async () => {
    const api = openDaily(ON);
    await sentence();
    expect(screen.getByText('De 1 a 1440 minutos (24 horas).')).toBeInTheDocument();
    fireEvent.change(grace(), { target: { value: '5000' } });
    expect(await sentence()).not.toHaveTextContent('até às');
    fireEvent.click(screen.getByRole('button', { name: 'Guardar check-in diário' }));
    expect(await screen.findByText('Escreva um número inteiro de minutos, de 1 a 1440.')).toBeInTheDocument();
    expect(grace()).toHaveAttribute('aria-invalid', 'true');
    expect(api.calls.filter((call) => call.method === 'PUT')).toHaveLength(0);
    expect(screen.queryByText(/Tente de novo/)).toBeNull();
  });

  it('the server’s refusal of a grace is said by the field, not as “try again”', async () => {
    openDaily(ON, undefined, () => ({
      status: 400,
      body: { grace_minutes: ['Ensure this value is less than or equal to 1440.'], code: 'max_value' },
    }));
    await sentence();
    await act(() => i18n.changeLanguage('en'));
    fireEvent.click(screen.getByRole('button', { name: 'Save daily check-in' }));
    expect(await screen.findByText('Enter a whole number of minutes, from 1 to 1440.')).toBeInTheDocument();
    expect(screen.queryByText(/Try again/)).toBeNull();
  });

  it('a pause is in the sentence, and said once in the status, with local dates', async () => {
    openDaily({ ...ON, status: 'paused', paused_until: '2099-12-10', next_due_at: '2099-12-10T10:00:00.000Z' });
    const status = await screen.findByTestId('daily-status');
    expect(await sentence()).toHaveTextContent(
      'Em pausa até 10/12/2099: nada é pedido e ninguém é alertado antes disso.',
    );
    expect(status).toHaveTextContent('Em pausa até 10/12/2099: retoma sozinho.');
    expect(status).not.toHaveTextContent('Em pausa ·');
    expect(status).not.toHaveTextContent('2099-12-10');
  });

  it('with the contacts not loaded, never says there are none', async () => {
    signIn();
    fakeApi({
      'GET /api/users/me/': { body: user({ has_premium: true, plan: 'premium', contact_limit: 10, token: 'tok' }) },
      'GET /api/emergency/contacts/': { status: 500, body: {} },
      'GET /api/users/me/devices/': { body: [] },
      'GET /api/users/me/daily-checkin/': { body: ON },
    });
    renderApp('/setup');
    await screen.findByText('Não foi possível carregar os contactos.', undefined, { timeout: 10_000 });
    const daily = within(document.querySelector('section.daily') as HTMLElement);
    expect(await daily.findByTestId('daily-sentence')).toHaveTextContent(
      'Se não fizer o check-in até às 11:00, os seus contactos recebem um SMS.',
    );
    expect(daily.queryByText(/ainda não tem contactos/)).toBeNull();
  }, 20_000);
});
