import { describe, expect, it } from 'vitest';
import { outboxCalls, pressOnCall, seedUser } from '../e2e/seed.js';
import { ENGINES, until, waitForText } from './page-helpers.js';
import { engineSuite } from './suite.js';

// The sender's view of an escalation in each engine: after the alert, when the contacts will be
// phoned if nobody answers; then, nobody having answered, each call's state; then a contact
// pressing 1 on the call, seen on the page as "will help" and among who is on the way.

// Three seconds to the calls: the page's wait is real time, as the server's timer is.
const SERVER_ENV = { BENCH_NO_RATE_LIMIT: '1', ESCALATION_AFTER_SECONDS: '3' };

describe.each(ENGINES)('escalation on %s', (name) => {
  const suite = engineSuite(name, SERVER_ENV);

  it('shows when the contacts will be phoned, each call’s state, and a contact who pressed 1', async () => {
    const user = await seedUser(suite.server.url, { countdownSeconds: 3 });
    const tab = await suite.engine.newTab();
    await tab.goto(`${suite.server.url}/public/${user.token}/`);
    await waitForText(tab, 'Se ninguém responder até às', 30_000);
    await waitForText(tab, 'Ninguém respondeu: estamos a ligar aos seus contactos.', 30_000);
    const calls = await until('a call to each contact', async () => {
      const mine = (await outboxCalls(suite.server.url)).filter((call) => call.say.includes(user.username));
      return mine.length === user.contacts.length ? mine : null;
    });
    for (const contact of user.contacts) await waitForText(tab, `${contact.name}: a tocar`);

    const [first] = calls;
    const called = user.contacts.find((contact) => contact.phone_number === first?.to);
    expect((await pressOnCall(suite.server.url, first?.id ?? '', '1')).acknowledged).toBe(true);
    await waitForText(tab, `${called?.name}: vai ajudar`);
    await waitForText(tab, `${called?.name} vai a caminho`);
    await tab.close();
  }, 90_000);
});
