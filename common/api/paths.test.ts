import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { API_CONTRACT } from './contract.js';
import { type ParamName, pathOf, patternOf } from './paths.js';
import {
  ALERT_POST_PATH,
  accountsRoutes,
  alertsRoutes,
  billingRoutes,
  checkinsRoutes,
  configRoutes,
  contactsRoutes,
  healthRoutes,
  liveRoutes,
  POSITION_POST_PATH,
} from './routes.js';

const CONTRACT = API_CONTRACT;
const ROUTES = {
  accountsRoutes,
  alertsRoutes,
  billingRoutes,
  checkinsRoutes,
  configRoutes,
  contactsRoutes,
  healthRoutes,
  liveRoutes,
};

type Entry = { method: string; url: string; params?: z.ZodObject };
const entries = Object.entries(CONTRACT).flatMap(([area, api]) =>
  Object.entries(api as Record<string, Entry>).map(([name, entry]) => ({ name: `${area}.${name}`, entry })),
);
const paramsOf = (url: string) => [...url.matchAll(/:(\w+)/g)].map((match) => match[1] as string);

describe('pathOf', () => {
  it('fills each parameter, percent-encoded', () => {
    expect(pathOf(alertsRoutes.get, { token: 'a/b?c', id: 'é #1' })).toBe(
      '/api/emergency/public/a%2Fb%3Fc/alerts/%C3%A9%20%231/',
    );
    expect(pathOf(liveRoutes.events, { publicId: '../x' })).toBe('/api/live/..%2Fx/events');
    expect(pathOf(contactsRoutes.remove, { id: '42' })).toBe('/api/emergency/contacts/42/');
  });

  it('gives a route without parameters its URL as it is', () => {
    expect(pathOf(accountsRoutes.login)).toBe('/api/users/auth/login/');
    expect(pathOf(healthRoutes.get)).toBe('/api/health');
  });

  it('refuses a parameter that is missing at run time (the types already do)', () => {
    // @ts-expect-error `id` is missing
    expect(() => pathOf(alertsRoutes.get, { token: 't' })).toThrow(':id');
    // @ts-expect-error a route with parameters needs them
    expect(() => pathOf(contactsRoutes.remove)).toThrow(':id');
  });

  it('types the parameters from the URL', () => {
    const names: ParamName<'/api/emergency/public/:token/alerts/:id/'>[] = ['token', 'id'];
    // @ts-expect-error not a parameter of this URL
    const wrong: ParamName<'/api/live/:publicId/'> = 'token';
    expect([names, wrong]).toHaveLength(2);
  });
});

describe('the contract’s routes', () => {
  it('every entry has its route’s method and URL, and every route an entry', () => {
    for (const [area, routes] of Object.entries(ROUTES)) {
      const api = CONTRACT[area.replace('Routes', 'Api') as keyof typeof CONTRACT] as Record<string, Entry>;
      expect(Object.keys(api).sort(), area).toEqual(Object.keys(routes).sort());
      for (const [name, route] of Object.entries(routes)) {
        expect({ method: api[name]?.method, url: api[name]?.url }, `${area}.${name}`).toEqual(route);
      }
    }
  });

  it.each(entries)('$name: the URL’s parameters are the params schema’s, and pathOf fills them all', ({ entry }) => {
    const names = paramsOf(entry.url);
    expect(names.sort()).toEqual(Object.keys(entry.params?.shape ?? {}).sort());
    const params = Object.fromEntries(names.map((name) => [name, `${name} /?`]));
    const path = pathOf(entry, params);
    expect(path).not.toContain(':');
    for (const name of names) expect(path).toContain(encodeURIComponent(`${name} /?`));
    expect(patternOf(entry).test(path)).toBe(true);
  });

  it('no two routes share a method and URL', () => {
    const keys = entries.map(({ entry }) => `${entry.method} ${entry.url}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('patternOf', () => {
  it('matches the alert POST of any token and nothing longer, shorter or elsewhere', () => {
    expect(ALERT_POST_PATH.test(pathOf(alertsRoutes.send, { token: 'tok_abc' }))).toBe(true);
    expect(ALERT_POST_PATH.test('/api/emergency/public/tok/alerts')).toBe(false);
    expect(ALERT_POST_PATH.test('/api/emergency/public/a/b/alerts/')).toBe(false);
    expect(ALERT_POST_PATH.test('/api/emergency/public/tok/alerts/1/location/')).toBe(false);
    expect(ALERT_POST_PATH.test('/x/api/emergency/public/tok/alerts/')).toBe(false);
    expect(POSITION_POST_PATH.test(pathOf(liveRoutes.position, { token: 't', id: 'a1' }))).toBe(true);
    expect(POSITION_POST_PATH.test(pathOf(alertsRoutes.send, { token: 't' }))).toBe(false);
  });

  it('takes the URL’s dots and other signs literally', () => {
    expect(patternOf({ url: '/api/a.b/:id/' }).test('/api/aXb/1/')).toBe(false);
    expect(patternOf({ url: '/api/a.b/:id/' }).test('/api/a.b/1/')).toBe(true);
  });
});
