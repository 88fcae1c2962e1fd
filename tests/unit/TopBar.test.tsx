import { fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { TopBar } from '../../src/components/TopBar';
import i18n from '../../src/i18n';

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
