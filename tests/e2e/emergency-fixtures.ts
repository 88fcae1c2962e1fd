// The emergency-page tests share the app's fixtures: one server per worker, rate limits lifted.
export { expect, test } from './fixtures.js';
