import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import i18n from '../../../src/i18n';
import { fakeApi, renderApp, setupAppTests } from './helpers';

setupAppTests();

describe('the browser tab', () => {
  it.each([
    ['/setup', 'Contactos — Alerta', 'Contacts — Alerta'],
    ['/pricing', 'Preços — Alerta', 'Pricing — Alerta'],
    ['/login', 'Entrar — Alerta', 'Log in — Alerta'],
    ['/trial-info', 'Teste gratuito — Alerta', 'Free trial — Alerta'],
    ['/reset-password/', 'Recuperar palavra-passe — Alerta', 'Recover your password — Alerta'],
    ['/reset-password-confirm/u1/tok', 'Nova palavra-passe — Alerta', 'New password — Alerta'],
    ['/no-such-page', 'Página não encontrada — Alerta', 'Page not found — Alerta'],
    ['/', 'Alerta', 'Alerta'],
  ])('is titled after %s in the person’s language', async (path, portuguese, english) => {
    fakeApi({});
    renderApp(path);
    expect(document.title).toBe(portuguese);
    await act(() => i18n.changeLanguage('en'));
    expect(document.title).toBe(english);
  });

  it('follows the page as the person moves', () => {
    fakeApi({});
    renderApp('/');
    expect(document.title).toBe('Alerta');
    fireEvent.click(screen.getAllByRole('link', { name: 'Preços' })[0]!);
    expect(document.title).toBe('Preços — Alerta');
  });
});
