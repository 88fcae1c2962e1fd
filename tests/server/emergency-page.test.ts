import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { premiumSubscriber } from './subscriber.js';

describe(`per-token web manifest of the emergency links (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const subscriber = (language: 'pt' | 'en') => premiumSubscriber(t, language);

  it('installs the emergency link itself, named for the product and the mode, in the owner’s language', async () => {
    const { token } = await subscriber('pt');
    const res = await t.app.inject({ method: 'GET', url: `/public/${token}/manifest.webmanifest` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/manifest+json');
    expect(res.json()).toMatchObject({
      id: `/public/${token}/`,
      start_url: `/public/${token}/`,
      scope: `/public/${token}/`,
      display: 'standalone',
      name: 'Alerta · Emergência',
      short_name: 'Emergência',
      theme_color: '#c62828',
      lang: 'pt',
    });
    const icons = res.json().icons as { src: string; sizes: string; purpose: string }[];
    expect(icons.map((i) => `${i.sizes} ${i.purpose}`).sort()).toEqual([
      '192x192 any',
      '192x192 maskable',
      '512x512 any',
      '512x512 maskable',
    ]);

    const test = await t.app.inject({ method: 'GET', url: `/test/${token}/manifest.webmanifest` });
    expect(test.json()).toMatchObject({
      start_url: `/test/${token}/`,
      scope: `/test/${token}/`,
      name: 'Alerta · Teste',
    });
  });

  it('speaks English for an English-speaking owner', async () => {
    const { token } = await subscriber('en');
    const res = await t.app.inject({ method: 'GET', url: `/public/${token}/manifest.webmanifest` });
    expect(res.json()).toMatchObject({ name: 'Alerta · Emergency', lang: 'en' });
  });

  it('answers 404 for an unknown, malformed or rotated token', async () => {
    const user = await subscriber('pt');
    for (const token of ['A'.repeat(32), 'short', '%3Cscript%3E', 'x'.repeat(150)]) {
      const res = await t.app.inject({ method: 'GET', url: `/public/${token}/manifest.webmanifest` });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
    const rotated = await t.app.inject({ method: 'POST', url: '/api/users/token/rotate/', headers: user.headers });
    expect(rotated.statusCode).toBe(200);
    const old = await t.app.inject({ method: 'GET', url: `/public/${user.token}/manifest.webmanifest` });
    expect(old.statusCode).toBe(404);
  });
});
