import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { dailyView } from '../../../src/alert/daily-test-fixtures';
import type { DailyView } from '../../../src/api/daily';
import type { Contact } from '../../../src/api/types';
import i18n from '../../../src/i18n';
import { DailyOk } from '../../../src/pages/home/DailyOk';
import { DailyCheckin } from '../../../src/pages/setup/DailyCheckin';
import { clockPlus } from '../../../src/pages/setup/DailySentence';
import { fakeApi, setupAppTests, signIn } from './helpers';

setupAppTests();

const OFF: DailyView = dailyView({ enabled: false, status: 'off', next_due_at: null });

const contact = (name: string): Contact =>
  ({ id: name, name, phone_number: '+351912345678', relationship: '', created_at: '' }) as unknown as Contact;

function dailyApi(answer: (body: unknown) => { status?: number; body?: unknown }) {
  return fakeApi({
    'GET /api/users/me/daily-checkin/': { body: OFF },
    'PUT /api/users/me/daily-checkin/': (_request, body) => answer(body),
  });
}

describe('Setup: the daily check-in', () => {
  it('says in plain words what will happen, with the contacts’ names, in Portuguese and English', async () => {
    signIn();
    dailyApi(() => ({ body: OFF }));
    render(<DailyCheckin contacts={[contact('Ana'), contact('Rui'), contact('Eva')]} limit={2} />);
    const sentence = await screen.findByTestId('daily-sentence');
    expect(sentence).toHaveTextContent(
      'Todos os dias antes das 10:00. Se não fizer o check-in até às 11:00, Ana e Rui recebem um SMS.',
    );
    await act(() => i18n.changeLanguage('en'));
    expect(screen.getByTestId('daily-sentence')).toHaveTextContent(
      'Every day before 10:00. If you haven’t checked in by 11:00, Ana and Rui get an SMS.',
    );
    fireEvent.change(screen.getByLabelText('Every how many days'), { target: { value: '2' } });
    fireEvent.change(screen.getByLabelText('Minutes of grace before the alert'), { target: { value: '150' } });
    expect(screen.getByTestId('daily-sentence')).toHaveTextContent(
      'Every 2 days, before 10:00. If you haven’t checked in by 12:30',
    );
  });

  it('saves the schedule and shows its status and next due time', async () => {
    signIn();
    const api = dailyApi((body) => ({
      body: { ...OFF, ...(body as object), status: 'waiting', next_due_at: '2026-12-01T09:30:00.000Z' },
    }));
    render(<DailyCheckin contacts={[contact('Ana')]} />);
    await screen.findByTestId('daily-sentence');
    await act(() => i18n.changeLanguage('en'));
    fireEvent.click(screen.getByLabelText('Turn on the daily check-in'));
    fireEvent.change(screen.getByLabelText('Before'), { target: { value: '09:30' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save daily check-in' }));
    expect(await screen.findByTestId('daily-status')).toHaveTextContent('Waiting for the next check-in');
    expect(screen.getByTestId('daily-status')).toHaveTextContent('Next check-in due by');
    expect(api.calls.find((call) => call.method === 'PUT')?.body).toEqual({
      enabled: true,
      time: '09:30',
      every_days: 1,
      grace_minutes: 60,
      paused_until: null,
    });
  });

  it('a plan without it is told it comes with Premium', async () => {
    signIn();
    dailyApi(() => ({ status: 402, body: { detail: 'x', code: 'subscription_required' } }));
    render(<DailyCheckin contacts={[]} />);
    await screen.findByTestId('daily-sentence');
    fireEvent.click(screen.getByRole('button', { name: 'Guardar check-in diário' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('O check-in diário faz parte do Premium');
  });

  it('counts the grace on the clock, across midnight', () => {
    expect(clockPlus('23:30', 60)).toBe('00:30');
    expect(clockPlus('09:41', 1440)).toBe('09:41');
  });
});

describe('Home: “I’m OK today”', () => {
  it('shows the daily check-in’s status and checks in with the session', async () => {
    signIn();
    const due: DailyView = { ...OFF, enabled: true, status: 'due', next_due_at: '2026-12-01T09:30:00.000Z' };
    const api = fakeApi({
      'GET /api/users/me/daily-checkin/': { body: due },
      'POST /api/emergency/public/tok/daily/ok/': { body: { ...due, status: 'waiting' } },
    });
    render(<DailyOk token="tok" />);
    expect(await screen.findByTestId('daily-ok-status')).toHaveTextContent('Check-in em falta');
    fireEvent.click(screen.getByRole('button', { name: 'Estou bem hoje' }));
    expect(await screen.findByText(/À espera do próximo check-in/)).toBeInTheDocument();
    const post = api.calls.find((call) => call.method === 'POST');
    expect(post?.headers.get('authorization')).toMatch(/^Bearer /);
  });

  it('shows nothing when no daily check-in is set', async () => {
    signIn();
    const api = fakeApi({ 'GET /api/users/me/daily-checkin/': { body: OFF } });
    const { container } = render(<DailyOk token="tok" />);
    await act(async () => {
      await Promise.resolve();
    });
    expect(api.calls).toHaveLength(1);
    expect(container).toBeEmptyDOMElement();
  });
});
