import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, dbLabel, type TestApp } from './helper.js';
import { premiumSubscriber } from './subscriber.js';

describe(`the emergency link's HTML comes with its countdown (${dbLabel})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({}, undefined, { pages: true });
  });
  afterAll(async () => {
    await t.close();
  });

  const subscriber = (language: 'pt' | 'en') => premiumSubscriber(t, language);

  it('writes the countdown, Cancel and the page’s data into the page, never kept by a cache', async () => {
    const { token } = await subscriber('en');
    const res = await t.app.inject({ method: 'GET', url: `/public/${token}/` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatch(/data-testid="countdown">The alert goes out in \d+ s</);
    expect(res.body).toContain('<button type="submit" class="button cancel">Cancel</button>');
    const data = /<script type="application\/json" id="alert-page-data" data-source="server">(.*?)<\/script>/.exec(
      res.body,
    );
    const api = await t.app.inject({ method: 'GET', url: `/api/emergency/public/${token}/` });
    expect(JSON.parse(data?.[1] ?? '')).toEqual(api.json());
  });

  it('compressed for a browser that accepts Brotli', async () => {
    const { token } = await subscriber('pt');
    const res = await t.app.inject({
      method: 'GET',
      url: `/public/${token}/`,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(res.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(res.rawPayload).toString()).toMatch(/O alerta sai em \d+ s/);
  });

  it('the plain page when cancelled before the script ran, or for a dead link', async () => {
    const { token } = await subscriber('pt');
    for (const url of [`/public/${token}/?cancelled=1`, `/public/${'A'.repeat(32)}/`]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).not.toContain('countdown');
      expect(res.body).toContain('<div id="root"></div>');
    }
  });
});
