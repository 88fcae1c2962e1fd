import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Device } from '../../../src/api/devices';
import i18n from '../../../src/i18n';
import { readDeviceKey, saveDeviceKey } from '../../../src/lib/device-key';
import { setNavigator } from '../../../src/lib/navigation';
import { Devices, whenText } from '../../../src/pages/setup/Devices';
import { useStore } from '../../../src/store';
import { fakeApi, setupAppTests, signIn } from './helpers';

setupAppTests();

const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

const PHONE: Device = {
  id: 'k1',
  name: 'Chrome · Android',
  created_at: ago(3 * 24 * 60 * MINUTE),
  last_used_at: ago(5 * MINUTE),
  current: true,
};
const TABLET: Device = { id: 'k2', name: null, created_at: ago(2 * 60 * MINUTE), last_used_at: null, current: false };

/** The devices API with `devices` in memory; `remove` answers each DELETE (204 removes it). */
function devicesApi(devices: Device[], remove: (id: string) => number = () => 204) {
  let stored = [...devices];
  return fakeApi({
    'GET /api/users/me/devices/': () => ({ body: stored }),
    'DELETE /api/users/me/devices/k1/': () => answer('k1'),
    'DELETE /api/users/me/devices/k2/': () => answer('k2'),
  });
  function answer(id: string) {
    const status = remove(id);
    // Gone either way: removed now, or by someone else before (404).
    if (status === 204 || status === 404) stored = stored.filter((device) => device.id !== id);
    return status === 204 ? { status } : { status, body: { detail: 'x', code: status === 404 ? 'not_found' : 'x' } };
  }
}

const items = () => screen.queryAllByTestId('device');

async function openDevices() {
  signIn();
  render(<Devices />);
  await screen.findAllByTestId('device');
}

describe('Setup: the devices list', () => {
  it('shows each device with its name, this device, and its last use in the person’s language', async () => {
    devicesApi([PHONE, TABLET]);
    await openDevices();
    const [phone, tablet] = items();
    expect(phone).toHaveTextContent('Chrome · Android');
    expect(phone).toHaveTextContent('Este dispositivo');
    expect(phone).toHaveTextContent('Última utilização: há 5 minutos');
    expect(tablet).toHaveTextContent('Dispositivo desconhecido');
    expect(tablet).toHaveTextContent('Adicionado: há 2 horas (ainda não usado)');
    await act(() => i18n.changeLanguage('en'));
    expect(items()[0]).toHaveTextContent('This device');
    expect(items()[0]).toHaveTextContent('Last used: 5 minutes ago');
    expect(items()[1]).toHaveTextContent('Unknown device');
    expect(items()[1]).toHaveTextContent('Added: 2 hours ago (not used yet)');
  });

  it('says when there is none', async () => {
    signIn();
    devicesApi([]);
    render(<Devices />);
    expect(await screen.findByText(/Nenhum dispositivo tem uma chave/)).toBeInTheDocument();
  });

  it('the confirmation says plainly that only the key ends, and the browser stays signed in, in both languages', async () => {
    devicesApi([PHONE, TABLET]);
    await openDevices();
    fireEvent.click(screen.getByRole('button', { name: 'Remover Dispositivo desconhecido' }));
    expect(screen.getByText(/Termina só a chave dele/)).toHaveTextContent(
      'Se tiver a sessão iniciada nesse navegador, ela continua iniciada; para a terminar também, use “Terminar sessão em todo o lado”.',
    );
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByText(/This ends only its key/)).toHaveTextContent(
      'If you are signed in on that browser, you stay signed in there; to end that too, use “Log out everywhere”.',
    );
  });

  it('removes a device only after confirmation; removing this one forgets its key here', async () => {
    const api = devicesApi([PHONE, TABLET]);
    saveDeviceKey('key-here', 'ana');
    await openDevices();
    fireEvent.click(screen.getByRole('button', { name: 'Remover Dispositivo desconhecido' }));
    expect(api.calls.some((call) => call.method === 'DELETE')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Cancelar' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remover Chrome · Android' }));
    expect(screen.getByText(/Remover este dispositivo \(Chrome · Android\)\?/)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Sim, remover' }));
    await vi.waitFor(() => expect(items()).toHaveLength(1));
    expect(items()[0]).toHaveTextContent('Dispositivo desconhecido');
    expect(api.calls.filter((call) => call.method === 'DELETE').map((call) => call.path)).toEqual([
      '/api/users/me/devices/k1/',
    ]);
    expect(readDeviceKey()).toBeNull();
    expect(useStore.getState().toasts.at(-1)?.message).toEqual({ key: 'devices.removed' });
  });

  it('keeps the device and says why when the removal fails, in both languages; an already removed one leaves the list', async () => {
    let status = 500;
    devicesApi([PHONE, TABLET], () => status);
    saveDeviceKey('key-here', 'ana');
    await openDevices();
    fireEvent.click(screen.getByRole('button', { name: 'Remover Chrome · Android' }));
    fireEvent.click(screen.getByRole('button', { name: 'Sim, remover' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Erro no servidor');
    expect(items()).toHaveLength(2);
    expect(readDeviceKey()).toEqual({ key: 'key-here', user: 'ana' });

    status = 400;
    fireEvent.click(screen.getByRole('button', { name: 'Remover Chrome · Android' }));
    fireEvent.click(screen.getByRole('button', { name: 'Sim, remover' }));
    expect(await screen.findByText('Não foi possível remover o dispositivo. Tente novamente.')).toBeInTheDocument();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByRole('alert')).toHaveTextContent('The device could not be removed. Try again.');

    status = 404;
    fireEvent.click(screen.getByRole('button', { name: 'Remove Unknown device' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, remove' }));
    expect(await screen.findByText('This device had already been removed.')).toBeInTheDocument();
    await vi.waitFor(() => expect(items()).toHaveLength(1));
    expect(items()[0]).toHaveTextContent('Chrome · Android');
  });

  it('says when the list could not be loaded, and loads it again', async () => {
    signIn();
    let fail = true;
    fakeApi({ 'GET /api/users/me/devices/': () => (fail ? { status: 503, body: {} } : { body: [TABLET] }) });
    render(<Devices />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Não foi possível carregar os dispositivos.');
    fail = false;
    fireEvent.click(screen.getByRole('button', { name: 'Carregar os dispositivos de novo' }));
    expect(await screen.findByText('Dispositivo desconhecido')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('logs out everywhere after confirmation: every session ends, and this device forgets its key', async () => {
    const everywhere = fakeApi({
      'GET /api/users/me/devices/': { body: [PHONE] },
      'POST /api/users/auth/logout-all/': { status: 204 },
    });
    saveDeviceKey('key-here', 'ana');
    await openDevices();
    const went: string[] = [];
    setNavigator((to) => went.push(to));
    fireEvent.click(screen.getByRole('button', { name: 'Terminar sessão em todo o lado' }));
    const confirm = screen.getByRole('group', { name: /Terminar todas as sessões/ });
    fireEvent.click(within(confirm).getByRole('button', { name: 'Sim, terminar todas' }));
    await vi.waitFor(() => expect(went).toEqual(['/login']));
    setNavigator(null);
    expect(everywhere.calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual([
      '/api/users/auth/logout-all/',
    ]);
    expect(useStore.getState().access).toBeNull();
    expect(readDeviceKey()).toBeNull();
  });

  it('keeps the session when logging out everywhere fails, and says so', async () => {
    fakeApi({
      'GET /api/users/me/devices/': { body: [PHONE] },
      'POST /api/users/auth/logout-all/': { status: 503, body: {} },
    });
    saveDeviceKey('key-here', 'ana');
    await openDevices();
    fireEvent.click(screen.getByRole('button', { name: 'Terminar sessão em todo o lado' }));
    fireEvent.click(screen.getByRole('button', { name: 'Sim, terminar todas' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Erro no servidor');
    expect(useStore.getState().access).not.toBeNull();
    expect(readDeviceKey()).toEqual({ key: 'key-here', user: 'ana' });
  });
});

describe('whenText', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  it.each([
    ['2026-11-28T11:59:30Z', 'pt', 'há 30 segundos'],
    ['2026-11-28T11:55:00Z', 'en', '5 minutes ago'],
    ['2026-11-27T12:00:00Z', 'pt', 'ontem'],
    ['2026-11-25T12:00:00Z', 'en', '3 days ago'],
  ])('%s in %s → %s', (iso, language, text) => {
    expect(whenText(iso, language, now)).toBe(text);
  });

  it('says the date itself past a week', () => {
    expect(whenText('2026-10-01T12:00:00Z', 'en', now)).toContain('2026');
  });
});
