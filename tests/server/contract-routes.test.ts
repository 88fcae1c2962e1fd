import type { HTTPMethods } from 'fastify';
import { describe, expect, it } from 'vitest';
import { API_CONTRACT } from '../../common/api/contract.js';
import { dbLabel, suiteApp } from './helper.js';

const CONTRACT = API_CONTRACT;

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
