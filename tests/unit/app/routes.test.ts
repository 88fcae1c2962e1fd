import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ROUTES, isAppRoute } from '../../../common/app-routes';

describe('app routes', () => {
  it('are exactly the routes of the app, so the server answers 404 for nothing the app shows', () => {
    const source = readFileSync(path.resolve(import.meta.dirname, '../../../src/App.tsx'), 'utf8');
    const routed = [...source.matchAll(/<Route path="([^"]+)"/g)].map((match) => match[1]).filter((p) => p !== '*');
    expect(routed.sort()).toEqual([...APP_ROUTES].sort());
  });

  it('match with parameters, a trailing slash and any case, and nothing else', () => {
    expect(['/', '/reset-password/', '/reset-password-confirm/MQ/a-b', '/SETUP'].every(isAppRoute)).toBe(true);
    expect(['/nope', '/setup/x', '/reset-password-confirm/MQ', '//'].some(isAppRoute)).toBe(false);
  });
});
