import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { OwnerAlert } from '../../../common/api/alerts';
import type { User } from '../../../src/api/types';
import i18n from '../../../src/i18n';
import { fakeApi, renderApp, settle, setupAppTests, signIn, user } from './helpers';

setupAppTests();

/** Opens /setup with a fake /me that keeps whether each PIN is set, or answers `refuse` when given. */
async function openPins(initial: Partial<User> = {}, refuse?: Record<string, unknown>) {
  signIn();
  let me: User = { ...user({ has_premium: true, token: 'tok', contact_limit: 10 }), ...initial };
  const fake = fakeApi({
    'GET /api/users/me/': () => ({ body: me }),
    'PATCH /api/users/me/': (_request, body) => {
      if (refuse) return { status: 400, body: refuse };
      const { checkin_pin, duress_pin } = body as { checkin_pin?: string | null; duress_pin?: string | null };
      if (checkin_pin !== undefined) me = { ...me, has_checkin_pin: checkin_pin !== null };
      if (duress_pin !== undefined) me = { ...me, has_duress_pin: duress_pin !== null };
      return { body: me };
    },
    'GET /api/emergency/contacts/': { body: [] },
  });
  renderApp('/setup');
  // The setup screen is loaded on demand: its first import can take a while on a busy machine.
  await screen.findByRole('heading', { name: 'Configurar contactos' }, { timeout: 5000 });
  await settle();
  const panel = within(screen.getByRole('region', { name: i18n.t('checkins.pinsTitle') }));
  return { fake, panel };
}

const patches = (fake: { calls: { method: string; body: unknown }[] }) =>
  fake.calls.filter((call) => call.method === 'PATCH').map((call) => call.body);

describe('Setup: the check-in PINs', () => {
  it('sets the check-in PIN as a hidden numeric input, then clears it', async () => {
    const { fake, panel } = await openPins();
    const input = panel.getByLabelText('PIN do check-in') as HTMLInputElement;
    expect(input.type).toBe('password');
    expect(input.inputMode).toBe('numeric');
    expect(panel.getByText(/parece exatamente igual ao PIN certo/)).toBeInTheDocument();
    expect(panel.getByText('Cinco PINs errados seguidos também alertam os seus contactos.')).toBeInTheDocument();
    expect(panel.getAllByText('Não definido')).toHaveLength(2);
    expect(panel.queryByRole('button', { name: 'Apagar PIN do check-in' })).toBeNull();

    fireEvent.change(input, { target: { value: '4821' } });
    fireEvent.click(panel.getByRole('button', { name: 'Guardar PIN do check-in' }));
    expect(await screen.findByText('PIN do check-in guardado.')).toBeInTheDocument();
    expect(patches(fake)).toEqual([{ checkin_pin: '4821' }]);
    expect(input.value).toBe('');
    expect(panel.getByText('Definido')).toBeInTheDocument();

    fireEvent.click(panel.getByRole('button', { name: 'Apagar PIN do check-in' }));
    expect(await screen.findByText('PIN do check-in apagado.')).toBeInTheDocument();
    expect(patches(fake)).toEqual([{ checkin_pin: '4821' }, { checkin_pin: null }]);
    expect(panel.getAllByText('Não definido')).toHaveLength(2);
  });

  it('sets and clears the duress PIN on its own', async () => {
    const { fake, panel } = await openPins({ has_checkin_pin: true, has_duress_pin: true });
    fireEvent.change(panel.getByLabelText('PIN de coação'), { target: { value: '13579' } });
    fireEvent.click(panel.getByRole('button', { name: 'Guardar PIN de coação' }));
    expect(await screen.findByText('PIN de coação guardado.')).toBeInTheDocument();
    fireEvent.click(panel.getByRole('button', { name: 'Apagar PIN de coação' }));
    expect(await screen.findByText('PIN de coação apagado.')).toBeInTheDocument();
    expect(patches(fake)).toEqual([{ duress_pin: '13579' }, { duress_pin: null }]);
    expect(panel.getByText('Definido')).toBeInTheDocument();
    expect(panel.getByText('Não definido')).toBeInTheDocument();
  });

  it.each([
    [
      'pt',
      'checkin_pin',
      'invalid_pin',
      'PIN do check-in',
      'Guardar PIN do check-in',
      'O PIN tem de ter 4 a 8 algarismos.',
    ],
    ['en', 'checkin_pin', 'invalid_pin', 'Check-in PIN', 'Save check-in PIN', 'A PIN has 4 to 8 digits.'],
    [
      'pt',
      'duress_pin',
      'same_pin',
      'PIN de coação',
      'Guardar PIN de coação',
      'O PIN de coação tem de ser diferente do PIN do check-in.',
    ],
    [
      'en',
      'duress_pin',
      'same_pin',
      'Duress PIN',
      'Save duress PIN',
      'The duress PIN must differ from the check-in PIN.',
    ],
  ])('in %s, shows the %s refusal %s under its field', async (language, field, code, label, save, words) => {
    const { panel } = await openPins({}, { [field]: ['Server text.'], code, codes: { [field]: code } });
    await i18n.changeLanguage(language);
    const input = panel.getByLabelText(label);
    fireEvent.change(input, { target: { value: '12' } });
    fireEvent.click(panel.getByRole('button', { name: save }));
    expect(await panel.findByText(words)).toBeInTheDocument();
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(panel.queryByText('Server text.')).toBeNull();
  });
});

function ownerAlert(id: string, reason: OwnerAlert['reason'], mode: OwnerAlert['mode'] = 'real'): OwnerAlert {
  return {
    id,
    public_id: `p${id}`,
    mode,
    reason,
    created_at: '2026-11-20T10:00:00Z',
    location: null,
    location_error: null,
    message: 'Ana precisa de ajuda.',
    deliveries: [],
  };
}

describe('Alert history: why each alert went out', () => {
  it.each([
    ['pt', ['Carregou no botão', 'Check-in não terminado', 'PIN de coação']],
    ['en', ['Pressed', 'Missed check-in', 'Duress PIN']],
  ])('in %s, says pressed, missed check-in or duress PIN', async (language, words) => {
    signIn();
    fakeApi({
      'GET /api/users/me/': { body: user({ has_premium: true, token: 'tok' }) },
      'GET /api/emergency/alerts/': {
        body: [ownerAlert('1', 'button'), ownerAlert('2', 'missed_checkin'), ownerAlert('3', 'duress', 'test')],
      },
    });
    await i18n.changeLanguage(language);
    renderApp('/');
    const list = await screen.findByRole('list', { name: i18n.t('checkins.historyTitle') });
    const rows = within(list).getAllByRole('listitem');
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringContaining(words[0] as string),
      expect.stringContaining(words[1] as string),
      expect.stringContaining(words[2] as string),
    ]);
  });
});
