import { act, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Contact } from '../../../src/api/types';
import i18n from '../../../src/i18n';
import { fakeApi, renderApp, settle, setupAppTests, signIn, user } from './helpers';

setupAppTests();

/** Opens /setup for a subscriber whose time zone is `zone`. */
async function openSetup(zone: string) {
  signIn();
  fakeApi({
    'GET /api/users/me/': {
      body: { ...user({ has_premium: true, token: 'tok', contact_limit: 10 }), time_zone: zone },
    },
    'GET /api/emergency/contacts/': { body: [] as Contact[] },
  });
  renderApp('/setup');
  await screen.findByRole('heading', { name: 'Configurar contactos' });
  await settle();
}

const optionTexts = (select: HTMLElement) =>
  within(select)
    .getAllByRole('option')
    .map((option) => option.textContent);

describe('country names', () => {
  it('are Portugal’s Portuguese, not Brazil’s, not English, not misspelt; and English in English', async () => {
    await openSetup('Europe/Lisbon');
    const countries = optionTexts(screen.getByLabelText('País'));
    for (const name of ['Chade +235', 'Ilhas Faroé +298', 'Iémen +967', 'Irão +98', 'Rússia +7', 'Internacional']) {
      expect(countries).toContain(name);
    }
    for (const wrong of ['Chad +235', 'Faroe Islands +298', 'Lémen +967', 'Irã +98']) {
      expect(countries).not.toContain(wrong);
    }
    // In Portuguese order: Á sorts with A, not after Z.
    expect(countries.indexOf('África do Sul +27')).toBeLessThan(countries.indexOf('Alemanha +49'));

    await act(() => i18n.changeLanguage('en'));
    const english = optionTexts(screen.getByLabelText('Country'));
    for (const name of ['Chad +235', 'Faroe Islands +298', 'Yemen +967', 'Portugal +351', 'International']) {
      expect(english).toContain(name);
    }
  });
});

describe('time zone names', () => {
  it('read as the zone’s time and its place in the person’s language, not as IANA names', async () => {
    await openSetup('Europe/Lisbon');
    const zone = screen.getByLabelText('O seu fuso horário') as HTMLSelectElement;
    expect(zone.value).toBe('Europe/Lisbon');
    expect(zone.selectedOptions[0]).toHaveTextContent(/^Hora da Europa Ocidental \(Lisbon\)$/);
    expect(optionTexts(zone)).toContain('Hora dos Açores (Azores)');
    expect(optionTexts(zone).some((text) => /^[A-Z][a-z]+\/\w/.test(text ?? ''))).toBe(false);

    await act(() => i18n.changeLanguage('en'));
    const english = screen.getByLabelText('Your time zone') as HTMLSelectElement;
    expect(english.selectedOptions[0]).toHaveTextContent(/^Western European Time \(Lisbon\)$/);
    expect(english.value).toBe('Europe/Lisbon');
  });
});
