import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { dailyView } from '../../../src/alert/daily-test-fixtures';
import type { DailyView } from '../../../src/api/daily';
import i18n from '../../../src/i18n';
import { DailyOk } from '../../../src/pages/home/DailyOk';
import { useStore } from '../../../src/store';
import { fakeApi, renderApp, setupAppTests, signIn, user } from './helpers';

setupAppTests();

const HOUR = 3_600_000;
const ZONE = 'Europe/Lisbon';
const lisbon = (at: number) =>
  new Intl.DateTimeFormat('pt-PT', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: ZONE }).format(at);

const view = (fields: Partial<DailyView>): DailyView =>
  dailyView({ status: 'waiting', next_due_at: new Date(Date.now() + 20 * HOUR).toISOString(), ...fields });

/** The owner signed in, on Lisbon's clock, whose schedule reads `status` and checks in as `afterOk`. */
function owner(status: DailyView, afterOk: DailyView = status) {
  signIn();
  useStore.setState({ user: { ...user({}, 'tok'), time_zone: ZONE } });
  return fakeApi({
    'GET /api/users/me/daily-checkin/': { body: status },
    'POST /api/emergency/public/tok/daily/ok/': { body: afterOk },
  });
}

describe('Home: the daily check-in card', () => {
  it('on a missed day asks whether to tell the contacts, ends the alarm with its answer, and the open alerts are read again', async () => {
    const due = Date.now() - 2 * HOUR;
    signIn();
    const api = fakeApi({
      'GET /api/users/me/': { body: user({ has_premium: true, plan: 'premium', token: 'tok' }) },
      'GET /api/users/me/daily-checkin/': {
        body: view({ status: 'missed', next_due_at: new Date(due).toISOString() }),
      },
      'POST /api/emergency/public/tok/daily/ok/': {
        body: view({ last_ok_at: new Date().toISOString(), next_due_at: new Date(due + 24 * HOUR).toISOString() }),
      },
      'GET /api/emergency/public/tok/open-alerts/': { body: [] },
    });
    const listed = () => api.calls.filter((c) => c.path === '/api/emergency/public/tok/open-alerts/').length;
    renderApp('/');
    const tell = await screen.findByRole('checkbox', {
      name: 'Terminar o alerta e avisar os contactos por SMS de que estou bem',
    });
    expect(tell).toBeChecked();
    fireEvent.click(tell);
    await vi.waitFor(() => expect(listed()).toBe(1));
    fireEvent.click(screen.getByRole('button', { name: 'Estou bem hoje' }));
    await screen.findByTestId('daily-done');
    expect(api.calls.find((c) => c.path.endsWith('/daily/ok/'))?.body).toEqual({ notify: false });
    await vi.waitFor(() => expect(listed()).toBe(2));
    await act(() => i18n.changeLanguage('en'));
    expect(screen.queryByRole('checkbox')).toBeNull();
  });

  it('after “Estou bem hoje”, the button goes and the card says it counted, with the time', async () => {
    const due = Date.now() - HOUR / 2;
    const tapped = Date.now();
    owner(
      view({ status: 'due', next_due_at: new Date(due).toISOString() }),
      view({ last_ok_at: new Date(tapped).toISOString(), next_due_at: new Date(due + 24 * HOUR).toISOString() }),
    );
    render(<DailyOk token="tok" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Estou bem hoje' }));
    expect(await screen.findByTestId('daily-done')).toHaveTextContent(`Feito hoje às ${lisbon(tapped)} ✓`);
    expect(screen.queryByRole('button', { name: 'Estou bem hoje' })).toBeNull();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByTestId('daily-done')).toHaveTextContent(`Done today at ${lisbon(tapped)} ✓`);
  });

  it('while a check-in is due, says when the contacts are alerted', async () => {
    const due = Date.now() - HOUR / 2;
    owner(view({ status: 'due', next_due_at: new Date(due).toISOString(), grace_minutes: 45 }));
    render(<DailyOk token="tok" />);
    const time = lisbon(due + 45 * 60_000);
    expect(await screen.findByTestId('daily-due')).toHaveTextContent(
      `Os seus contactos são alertados às ${time} se não tocar em “Estou bem hoje”.`,
    );
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByTestId('daily-due')).toHaveTextContent(
      `Your contacts are alerted at ${time} unless you tap “I’m OK today”.`,
    );
  });

  it('offers “Estou bem hoje” by the emergency page’s rule: within 12 hours of the due time, not 20', async () => {
    owner(view({ next_due_at: new Date(Date.now() + 20 * HOUR).toISOString() }));
    const { unmount } = render(<DailyOk token="tok" />);
    expect(await screen.findByTestId('daily-ok-status')).toHaveTextContent('À espera do próximo check-in');
    expect(screen.queryByRole('button', { name: 'Estou bem hoje' })).toBeNull();
    unmount();
    owner(view({ next_due_at: new Date(Date.now() + 11 * HOUR).toISOString() }));
    render(<DailyOk token="tok" />);
    expect(await screen.findByRole('button', { name: 'Estou bem hoje' })).toBeVisible();
  });

  it('says a pause once, with its end as a local date', async () => {
    owner(view({ status: 'paused', paused_until: '2026-12-10' }));
    render(<DailyOk token="tok" />);
    const status = await screen.findByTestId('daily-ok-status');
    expect(status).toHaveTextContent('Em pausa até 10/12/2026: retoma sozinho.');
    expect(status).not.toHaveTextContent('Em pausa ·');
    expect(status).not.toHaveTextContent('2026-12-10');
  });
});
