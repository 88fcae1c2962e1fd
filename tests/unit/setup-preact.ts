import '@testing-library/jest-dom/vitest';
import { act, cleanup } from '@testing-library/preact';
import { afterEach } from 'vitest';

afterEach(() => {
  // Preact runs the effect cleanups of an unmounted component after the next frame; inside act they
  // run now, before the test's environment is torn down (@testing-library/preact's cleanup is not in act).
  act(() => cleanup());
  localStorage.clear();
});
