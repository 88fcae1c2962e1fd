import { act, render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Toasts } from '../../../src/components/Toasts';
import { useStore } from '../../../src/store';
import { setupAppTests } from './helpers';

setupAppTests();

/** A button whose box is at `top` px of a 740-px-high screen, focused, as after a tap. */
function buttonAt(top: number) {
  const button = document.createElement('button');
  document.body.append(button);
  button.getBoundingClientRect = () => ({
    top,
    bottom: top + 48,
    height: 48,
    left: 0,
    right: 100,
    width: 100,
    x: 0,
    y: top,
    toJSON: () => ({}),
  });
  button.focus();
  return button;
}

// A toast confirms what a button did: it never covers that button.
describe('toasts', () => {
  it('go to the top when the button they confirm is in the lower half of the screen, else stay at the bottom', () => {
    window.innerHeight = 740;
    const { container } = render(<Toasts />);
    const low = buttonAt(660);
    act(() => useStore.getState().pushToast('success', { key: 'daily.saved' }));
    expect(container.querySelector('ul.toasts')).toHaveClass('top');
    low.remove();
    act(() => useStore.setState({ toasts: [] }));
    const high = buttonAt(80);
    act(() => useStore.getState().pushToast('success', { key: 'daily.saved' }));
    expect(container.querySelector('ul.toasts')).not.toHaveClass('top');
    high.remove();
  });
});
