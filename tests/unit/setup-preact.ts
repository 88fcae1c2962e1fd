import '@testing-library/jest-dom/vitest';
import { act, cleanup, configure } from '@testing-library/preact';
import { afterEach } from 'vitest';

// How long findBy… and waitFor wait for the page: the first render of a lazily loaded page took
// over the default second on a loaded two-core machine (a page that never shows still fails).
configure({ asyncUtilTimeout: 5_000 });

afterEach(() => {
  // Preact runs the effect cleanups of an unmounted component after the next frame; inside act they
  // run now, before the test's environment is torn down (@testing-library/preact's cleanup is not in act).
  act(() => cleanup());
  localStorage.clear();
});
