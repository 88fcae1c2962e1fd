import { act, type RenderResult, render } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';
import { ACCESS_TOKEN_KEY, REFRESH_TOKEN_KEY } from '../../../common/constants';
import { App } from '../../../src/App';
import type { Profile, User } from '../../../src/api/types';
import i18n from '../../../src/i18n';
import { resetStore } from '../../../src/store';
import { NO_SUBSCRIPTION } from '../../fixtures/profiles';

/** One faked API answer: a status and a JSON body (or none). */
export interface Answer {
  status?: number;
  body?: unknown;
}
type Handler = (request: Request, body: unknown) => Answer | Promise<Answer>;

/** A fake of the API at the HTTP level: `"METHOD /api/path/"` → handler; every request is recorded. */
export function fakeApi(routes: Record<string, Handler | Answer>) {
  const calls: { method: string; path: string; headers: Headers; body: unknown }[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const body = text ? JSON.parse(text) : undefined;
    calls.push({ method: request.method, path: url.pathname, headers: request.headers, body });
    const route = routes[`${request.method} ${url.pathname}`];
    if (!route) return new Response(JSON.stringify({ detail: 'Not found.' }), { status: 404 });
    const answer = typeof route === 'function' ? await route(request, body) : route;
    const status = answer.status ?? 200;
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetch);
  return { fetch, calls };
}

/** A profile with no subscription, overridable field by field. */
export function profile(fields: Partial<Profile> = {}): Profile {
  return {
    ...NO_SUBSCRIPTION,
    alert_countdown_seconds: 5,
    token: null,
    ...fields,
  };
}

/** A user (ana) with the given profile fields. */
export function user(fields: Partial<Profile> = {}, token: string | null = fields.token ?? null): User {
  return {
    id: 'u1',
    username: 'ana',
    email: 'ana@example.com',
    language: 'pt',
    display_name: null,
    time_zone: null,
    token,
    has_checkin_pin: false,
    escalation_after_seconds: 300,
    has_duress_pin: false,
    profile: profile(fields),
  };
}

/** Stores tokens as a previous visit would have left them. */
export function signIn(access = 'access-1', refresh = 'refresh-1') {
  localStorage.setItem(ACCESS_TOKEN_KEY, access);
  localStorage.setItem(REFRESH_TOKEN_KEY, refresh);
  resetStore();
}

let currentPath = '';
function LocationProbe() {
  const location = useLocation();
  currentPath = location.pathname + location.search;
  return null;
}

/** The path the router is on now. */
export const pathNow = () => currentPath;

/** Renders the whole app at `path`. */
export function renderApp(path = '/'): RenderResult {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <LocationProbe />
      <App />
    </MemoryRouter>,
  );
}

/** Fresh store, Portuguese, real timers and no fakes, for every test of the app. */
export function setupAppTests() {
  beforeEach(async () => {
    resetStore();
    await i18n.changeLanguage('pt');
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    resetStore();
  });
}

/**
 * Lets pending requests and renders finish without timers, for tests that fake setTimeout
 * (Testing Library's find* helpers wait on setTimeout, so they cannot be used then).
 */
export async function settle(rounds = 10) {
  for (let i = 0; i < rounds; i++) {
    await act(() => new Promise<void>((resolve) => setImmediate(resolve)));
  }
}

/** Fakes only setTimeout: the spec's delays are then advanced by hand. */
export const fakeTimeouts = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
