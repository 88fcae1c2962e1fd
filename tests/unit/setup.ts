import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// How long findBy… and waitFor wait for the page: the first render of a lazily loaded page took
// over the default second on a loaded two-core machine (a page that never shows still fails).
configure({ asyncUtilTimeout: 5_000 });

afterEach(() => {
  cleanup();
  localStorage.clear();
});
