import { describe, expect, it } from 'vitest';
import { missDailyCheckin } from '../e2e/missed-daily.js';
import { seedUser } from '../e2e/seed.js';
import { click, ENGINES, signInOnPage, until, waitForText } from './page-helpers.js';
import { engineSuite } from './suite.js';

// The alarm the server raised (a missed daily check-in), on the emergency page in each engine:
// once the owner signs in on the page, it shows the open alert with why, and "Estou em segurança"
// ends it; the link alone shows nothing of it.

const SERVER_ENV = { BENCH_NO_RATE_LIMIT: '1' };

describe.each(ENGINES)('open alerts on %s', (name) => {
  const suite = engineSuite(name, SERVER_ENV);

  it('the emergency page, signed in, shows the alarm the server raised and ends it with “Estou em segurança”', async () => {
    const user = await seedUser(suite.server.url);
    const { access } = await missDailyCheckin(suite.server, user);
    const openAlerts = async () => {
      const answer = await fetch(`${suite.server.url}/api/emergency/public/${user.token}/open-alerts/`, {
        headers: { authorization: `Bearer ${access}` },
      });
      return (await answer.json()) as { id: string }[];
    };
    expect(await openAlerts()).toHaveLength(1);

    const tab = await suite.engine.newTab();
    await tab.goto(`${suite.server.url}/public/${user.token}/?cancelled=1`);
    await waitForText(tab, 'Alerta cancelado. Nada foi enviado.');
    expect(await tab.run<boolean>(`return document.querySelector('[data-testid="open-alerts"]') === null;`)).toBe(true);
    await signInOnPage(tab, user.username);
    await waitForText(tab, 'Não fez o check-in diário: os seus contactos foram alertados às');
    await until('"Estou em segurança"', () => tab.run<boolean>(click('Estou em segurança')));
    await until('"Sim, estou em segurança"', () => tab.run<boolean>(click('Sim, estou em segurança')));
    await waitForText(tab, 'Alerta terminado: está em segurança.');
    expect(await openAlerts()).toEqual([]);
    await tab.close();
  }, 90_000);
});
