import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { CheckinView } from '../../../common/api/checkins';
import i18n from '../../../src/i18n';
import { fakeApi, renderApp, settle, setupAppTests, signIn, user } from './helpers';

setupAppTests();

const DUE = '2026-11-25T21:30:00Z';
const FIRES = '2026-11-25T21:45:00Z';
const ENDED = '2026-11-25T21:10:00Z';
const CURRENT = '/api/emergency/public/tok%2F1/checkins/current/';

function checkin(fields: Partial<CheckinView> = {}): CheckinView {
  return {
    id: 'c1',
    status: 'running',
    due_at: DUE,
    grace_seconds: 900,
    fires_at: FIRES,
    note: null,
    created_at: '2026-11-25T20:30:00Z',
    ended_at: null,
    alert_id: null,
    alert_public_id: null,
    ...fields,
  };
}

/** The time of day as Portugal and Ireland write it, in the test's own time zone. */
const at = (iso: string, language: string) =>
  new Date(iso).toLocaleTimeString(language === 'pt' ? 'pt-PT' : 'en-IE', { hour: '2-digit', minute: '2-digit' });

/** Opens the home page of an owner whose token is `tok/1`, with the current check-in answered by `answer`. */
async function openHome(answer: { status?: number; body?: unknown }, language = 'pt') {
  signIn();
  await i18n.changeLanguage(language);
  const fake = fakeApi({
    'GET /api/users/me/': { body: user({ has_premium: true }, 'tok/1') },
    [`GET ${CURRENT}`]: answer,
  });
  renderApp('/');
  await screen.findByRole('heading', { name: /Olá, ana|Hello, ana/ });
  await settle();
  return fake;
}

describe('Home: the current check-in', () => {
  it('shows a running check-in with its due time and when the alert goes out, linking to the emergency page', async () => {
    const fake = await openHome({ body: checkin({ note: 'Caminhada na serra' }) });
    const card = within(screen.getByRole('region', { name: 'O seu check-in' }));
    expect(card.getByText(`Check-in a decorrer: termina às ${at(DUE, 'pt')}.`)).toBeInTheDocument();
    expect(
      card.getByText(`Se não o terminar, os seus contactos são alertados às ${at(FIRES, 'pt')}.`),
    ).toBeInTheDocument();
    expect(card.getByText('Caminhada na serra')).toBeInTheDocument();
    const link = card.getByRole('link', { name: 'Abrir a página de emergência para terminar o check-in' });
    expect(link).toHaveAttribute('href', '/public/tok%2F1/');
    expect(fake.calls.some((call) => call.path === CURRENT)).toBe(true);
  });

  it('says an overdue check-in is late, in English', async () => {
    await openHome({ body: checkin({ status: 'overdue' }) }, 'en');
    const card = within(screen.getByRole('region', { name: 'Your check-in' }));
    expect(card.getByText(`Check-in overdue since ${at(DUE, 'en')}.`)).toBeInTheDocument();
    expect(card.getByText(`Unless you end it, your contacts are alerted at ${at(FIRES, 'en')}.`)).toBeInTheDocument();
  });

  it.each([
    ['pt', 'done', `Check-in terminado às ${at(ENDED, 'pt')}.`, 'Abrir a página de emergência'],
    ['en', 'done', `Check-in ended at ${at(ENDED, 'en')}.`, 'Open the emergency page'],
    [
      'pt',
      'fired',
      `O check-in não foi terminado a tempo: os seus contactos foram alertados às ${at(ENDED, 'pt')}.`,
      'Abrir a página de emergência',
    ],
    [
      'en',
      'fired',
      `The check-in was not ended in time: your contacts were alerted at ${at(ENDED, 'en')}.`,
      'Open the emergency page',
    ],
  ] as const)('in %s, says a %s check-in ended and when', async (language, status, words, link) => {
    await openHome({ body: checkin({ status, ended_at: ENDED }) }, language);
    expect(await screen.findByText(words)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: link })).toHaveAttribute('href', '/public/tok%2F1/');
    expect(screen.queryByText(/Se não o terminar|Unless you end it/)).toBeNull();
  });

  it('shows nothing when there is no check-in (404)', async () => {
    const fake = await openHome({ status: 404, body: { detail: 'Not found.', code: 'not_found' } });
    expect(fake.calls.some((call) => call.path === CURRENT)).toBe(true);
    expect(screen.queryByRole('region', { name: 'O seu check-in' })).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('asks nothing for an owner without a token', async () => {
    signIn();
    const fake = fakeApi({ 'GET /api/users/me/': { body: user({ has_premium: true }) } });
    renderApp('/');
    await screen.findByRole('heading', { name: 'Olá, ana' });
    await settle();
    expect(fake.calls.some((call) => call.path.includes('checkins'))).toBe(false);
  });
});
