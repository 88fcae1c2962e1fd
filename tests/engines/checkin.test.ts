import { describe, expect, it } from 'vitest';
import { seedUser } from '../e2e/seed.js';
import type { Tab } from './engines.js';
import { click, ENGINES, signInOnPage, until, untilControlled, waitForText } from './page-helpers.js';
import { engineSuite } from './suite.js';

// A check-in on the emergency page in each engine: started with the link alone, still running in
// a new tab (its state comes from the server), refused "Estou bem" until the owner signs in on the
// page (only the owner lowers it: the page then sends its device key), and ended with "Estou bem"
// pressed while the server is down, the queued request keeping the key. As in emergency.test.ts, "no network" is the server process stopping and
// starting again on the same port and data directory: no engine here has an offline switch that
// reaches its service worker.

const SERVER_ENV = { BENCH_NO_RATE_LIMIT: '1' };
describe.each(ENGINES)('check-in on %s', (name) => {
  const suite = engineSuite(name, SERVER_ENV);
  const { stopServer, restartServer } = suite;

  /** Opens the emergency page and cancels its alert countdown. */
  async function openCancelled(token: string): Promise<Tab> {
    const tab = await suite.engine.newTab();
    await tab.goto(`${suite.server.url}/public/${token}/`);
    await until('the Cancel button', () => tab.run<boolean>(click('Cancelar')));
    await waitForText(tab, 'Alerta cancelado. Nada foi enviado.');
    return tab;
  }
  const current = async (token: string) => {
    const answer = await fetch(`${suite.server.url}/api/emergency/public/${token}/checkins/current/`);
    return answer.status === 404 ? null : ((await answer.json()) as { status: string });
  };

  it('starts with the link, shows the running check-in again in a new tab, and ends with "Estou bem" once the owner signed in', async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 10 });
    const first = await openCancelled(user.token);
    await until('the check-in button', () => first.run<boolean>(click('Fazer check-in')));
    await until('the start button', () => first.run<boolean>(click('Iniciar check-in')));
    await waitForText(first, 'Faltam 1');
    expect((await current(user.token))?.status).toBe('running');
    await first.close();

    const again = await openCancelled(user.token);
    await waitForText(again, 'Faltam 1');
    // The link alone cannot end it: the page says so and points at its sign-in.
    await until('"Estou bem"', () => again.run<boolean>(click('Estou bem')));
    await waitForText(again, 'Só o titular pode terminar ou adiar este check-in');
    expect((await current(user.token))?.status).toBe('running');
    await until('the sign-in button', () => again.run<boolean>(click('Iniciar sessão neste telemóvel')));
    await signInOnPage(again, user.username);
    await until('"Estou bem"', () => again.run<boolean>(click('Estou bem')));
    await waitForText(again, 'Check-in terminado. Ninguém foi alertado.');
    expect((await current(user.token))?.status).toBe('done');
    await again.close();
  }, 90_000);

  it('"Estou bem" pressed with the server down waits in the queue, and the check-in ends when the server returns', async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 10 });
    const tab = await openCancelled(user.token);
    // Only the worker keeps the press: a page it does not control just says it is waiting.
    await untilControlled(tab);
    await signInOnPage(tab, user.username);
    await until('the check-in button', () => tab.run<boolean>(click('Fazer check-in')));
    await until('the start button', () => tab.run<boolean>(click('Iniciar check-in')));
    await waitForText(tab, 'Faltam 1');
    await stopServer();
    try {
      await until('"Estou bem"', () => tab.run<boolean>(click('Estou bem')));
      await waitForText(tab, 'Sem rede: o «Estou bem» está em fila e segue quando houver ligação.', 30_000);
    } finally {
      await restartServer();
    }
    // The check-in page has no retry timer and no `online` event comes (the network never went
    // away), and WebKit and Firefox have no Background Sync: any page of the app opening makes the
    // worker send its queue, and it tells the check-in page, still open, which asks the suite.server.
    const home = await suite.engine.newTab();
    await home.goto(`${suite.server.url}/`);
    await waitForText(tab, 'Check-in terminado. Ninguém foi alertado.', 40_000);
    expect((await current(user.token))?.status).toBe('done');
    await home.close();
    await tab.close();
  }, 120_000);
});
