import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../../../src/i18n';
import { IphoneInstall } from '../../../src/pages/setup/IphoneInstall';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

function asBrowser(userAgent: string, standalone = false) {
  vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(userAgent);
  Object.defineProperty(navigator, 'standalone', { value: standalone, configurable: true });
}

afterEach(() => {
  vi.restoreAllMocks();
  Object.defineProperty(navigator, 'standalone', { value: undefined, configurable: true });
});

describe('setup on iPhone', () => {
  it('shows Safari’s steps and the 7-day warning instead of an install button, in both languages', async () => {
    asBrowser(IPHONE);
    await i18n.changeLanguage('pt');
    const { unmount } = render(<IphoneInstall />);
    expect(
      screen.getByText(
        'No iPhone: abra a ligação «Emergência real» no Safari, toque em Partilhar e depois em «Adicionar ao ecrã principal».',
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/o Safari pode apagar os dados guardados do Alerta após 7 dias sem uso/),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button')).toBeNull();
    unmount();
    await i18n.changeLanguage('en');
    render(<IphoneInstall />);
    expect(
      screen.getByText('On iPhone: open the “Real Emergency” link in Safari, tap Share, then “Add to Home Screen”.'),
    ).toBeInTheDocument();
    expect(screen.getByText(/Safari may delete Alerta’s saved data after 7 days without use/)).toBeInTheDocument();
    await i18n.changeLanguage('pt');
  });

  it('says nothing once the page runs from the home screen, or on other phones', () => {
    asBrowser(IPHONE, true);
    const { container, unmount } = render(<IphoneInstall />);
    expect(container).toBeEmptyDOMElement();
    unmount();
    asBrowser(ANDROID);
    expect(render(<IphoneInstall />).container).toBeEmptyDOMElement();
  });
});
