import type { HTTPMethods } from 'fastify';
import { describe, expect, it } from 'vitest';
import { accountsApi } from '../../common/api/accounts.js';
import { alertsApi } from '../../common/api/alerts.js';
import { billingApi } from '../../common/api/billing.js';
import { checkinsApi } from '../../common/api/checkins.js';
import { configApi } from '../../common/api/config.js';
import { contactsApi } from '../../common/api/contacts.js';
import { healthApi } from '../../common/api/health.js';
import { liveApi } from '../../common/api/live.js';
import { dbLabel, suiteApp } from './helper.js';

const CONTRACT = { accountsApi, alertsApi, billingApi, checkinsApi, configApi, contactsApi, healthApi, liveApi };

describe(`the API contract's routes (${dbLabel})`, () => {
  const t = suiteApp();

  // The pages call what the contract says: a route the server registers elsewhere (the live
  // routes still name their URLs themselves) would leave them calling a 404.
  it('the server answers each route of the contract at its method and URL', () => {
    const missing = Object.values(CONTRACT)
      .flatMap((api) => Object.values(api as Record<string, { method: HTTPMethods; url: string }>))
      .filter(({ method, url }) => !t.app.hasRoute({ method, url }))
      .map(({ method, url }) => `${method} ${url}`);
    expect(missing).toEqual([]);
  });
});
