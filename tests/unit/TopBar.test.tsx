import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TopBar } from '../../src/components/TopBar';
import i18n from '../../src/i18n';
import { resetStore, useStore } from '../../src/store';

describe('TopBar', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('pt');
  });

  it('shows the five links in Portuguese and switches to English, saving the choice', async () => {
    render(
      <MemoryRouter>
        <TopBar />
      </MemoryRouter>,
    );
    for (const name of ['Início', 'Configurar', 'Preços', 'Termos', 'Privacidade']) {
      expect(screen.getByRole('link', { name })).toBeInTheDocument();
    }
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    expect(await screen.findByRole('link', { name: 'Pricing' })).toBeInTheDocument();
    expect(localStorage.getItem('lang')).toBe('en');
    expect(document.documentElement.lang).toBe('en');
  });
});

describe('TopBar language for a logged-in user', () => {
  beforeEach(async () => {
    await i18n.changeLanguage('pt');
    resetStore();
  });
  afterEach(() => vi.unstubAllGlobals());

  it('saves the language on the account too', async () => {
    const sent: { method: string; path: string; body: unknown }[] = [];
    const fetch = vi.fn(async (request: Request) => {
      sent.push({ method: request.method, path: new URL(request.url).pathname, body: await request.json() });
      return new Response('{}', { status: 200 });
    });
    vi.stubGlobal('fetch', fetch);
    useStore.setState({ access: 'a1', user: { id: 'u1' } as never });
    render(
      <MemoryRouter>
        <TopBar />
      </MemoryRouter>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'English' }));
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    expect(sent).toEqual([{ method: 'PATCH', path: '/api/users/me/', body: { language: 'en' } }]);
    expect(document.documentElement.lang).toBe('en');
  });
});
