import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { dailyView, fakePush, PUSH_ENDPOINT } from '../../../src/alert/daily-test-fixtures';
import type { DailyView } from '../../../src/api/daily';
import i18n from '../../../src/i18n';
import { forgetDeviceKey, saveDeviceKey } from '../../../src/lib/device-key';
import { DailyCheckin } from '../../../src/pages/setup/DailyCheckin';
import { useStore } from '../../../src/store';
import { fakeApi, setupAppTests, signIn, user } from './helpers';

setupAppTests();

// Setup's daily check-in says whether this phone gets the daily reminder as a notification,
// and if not, how to get it (the emergency page on this phone asks for it): the e-mail always goes.

const ON = dailyView({ status: 'waiting', next_due_at: '2026-12-01T10:00:00.000Z' });
const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';

function open(daily: DailyView = ON) {
  signIn();
  useStore.getState().setUser(user({}, 'tok'));
  fakeApi({ 'GET /api/users/me/daily-checkin/': { body: daily } });
  render(<DailyCheckin contacts={[]} />);
}

afterEach(async () => {
  Reflect.deleteProperty(navigator, 'serviceWorker');
  await forgetDeviceKey();
  localStorage.clear();
});

describe('Setup: whether this phone gets the daily reminder', () => {
  it('not yet: says the e-mail comes and how to get it here, with the emergency page’s link, in Portuguese and English', async () => {
    saveDeviceKey(KEY, 'ana');
    fakePush();
    open();
    const here = await screen.findByTestId('daily-push-here');
    expect(here).toHaveTextContent(
      'O lembrete diário chega por e-mail. Para o receber também como notificação neste telemóvel, abra aqui a sua página de emergência e toque em “Lembrar-me aqui”.',
    );
    expect(screen.getByRole('link', { name: 'Abrir a página de emergência' })).toHaveAttribute(
      'href',
      '/public/tok/#daily',
    );
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByTestId('daily-push-here')).toHaveTextContent(
      'The daily reminder comes by e-mail. To get it as a notification on this phone too, open your emergency page here and tap “Remind me here”.',
    );
    expect(screen.getByRole('link', { name: 'Open the emergency page' })).toBeInTheDocument();
  });

  it('allowed but never registered with the server (or under an earlier key): still not yet', async () => {
    saveDeviceKey(KEY, 'ana');
    fakePush({ permission: 'granted', subscribed: true });
    localStorage.setItem('alerta.push-registered', JSON.stringify({ endpoint: PUSH_ENDPOINT, key: 'otherkey' }));
    open();
    expect(await screen.findByTestId('daily-push-here')).toHaveTextContent(/abra aqui a sua página de emergência/);
  });

  it('registered here: says this phone gets it', async () => {
    saveDeviceKey(KEY, 'ana');
    fakePush({ permission: 'granted', subscribed: true });
    localStorage.setItem('alerta.push-registered', JSON.stringify({ endpoint: PUSH_ENDPOINT, key: KEY.slice(-8) }));
    open();
    expect(await screen.findByTestId('daily-push-here')).toHaveTextContent(
      'Este telemóvel recebe o lembrete diário como notificação, além do e-mail.',
    );
    expect(screen.queryByRole('link', { name: 'Abrir a página de emergência' })).toBeNull();
  });

  it('notifications blocked: says so, and that the e-mail still comes', async () => {
    saveDeviceKey(KEY, 'ana');
    fakePush({ permission: 'denied' });
    open();
    expect(await screen.findByTestId('daily-push-here')).toHaveTextContent(
      'As notificações do Alerta estão bloqueadas neste navegador: o lembrete diário chega só por e-mail.',
    );
  });

  it('a browser without the Push API: the e-mail only', async () => {
    saveDeviceKey(KEY, 'ana');
    open();
    expect(await screen.findByTestId('daily-push-here')).toHaveTextContent(
      'Este navegador não mostra notificações: o lembrete diário chega só por e-mail.',
    );
  });

  it('says nothing while the daily check-in is off', async () => {
    saveDeviceKey(KEY, 'ana');
    fakePush();
    open({ ...ON, enabled: false, status: 'off', next_due_at: null, time: '07:30' });
    // Settled: the server's schedule is in the form, and what this browser gets would be known.
    await screen.findByDisplayValue('07:30');
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(screen.queryByTestId('daily-push-here')).toBeNull();
  });
});
