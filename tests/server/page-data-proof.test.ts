import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SECRET_PATH_MAX_PER_MINUTE } from '../../server/plugins/security.js';
import { nextIp } from './accounts-helpers.js';
import { ownerWithContacts } from './alerts-fixtures.js';
import { createUser, dbLabel, suiteApp } from './helper.js';
import { ownerProofOf } from './live-fixtures.js';
import { watchStatements } from './statements-seen.js';

const MUM = '+351968100001';
const BROTHER = '+351968100002';

/**
 * The emergency page's data (`GET /api/emergency/public/{token}/`): a link holder sees the
 * contacts' names and masked numbers; the owner's page, with its proof, the full numbers it needs
 * for "send from my phone", also past the per-address ceiling a flooder filled.
 */
describe(`the emergency page's data and the owner's proof (${dbLabel})`, () => {
  // The stand-in build: the page's HTML carries the same data as its first paint.
  const t = suiteApp({}, undefined, { pages: true });
  const page = (token: string, ip: string, proof: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/api/emergency/public/${token}/`, headers: proof, remoteAddress: ip });
  const owner = () =>
    ownerWithContacts(t.app, {
      contacts: [
        ['Mãe', MUM],
        ['Irmão', BROTHER],
      ],
    });
  const masked = {
    contacts: [
      { id: expect.any(String), name: 'Mãe', phone_number: '•••••••001' },
      { id: expect.any(String), name: 'Irmão', phone_number: '•••••••002' },
    ],
    numbers_masked: true,
  };
  const full = {
    contacts: [
      { id: expect.any(String), name: 'Mãe', phone_number: MUM },
      { id: expect.any(String), name: 'Irmão', phone_number: BROTHER },
    ],
    numbers_masked: false,
  };

  it("shows a link holder the contacts' names and masked numbers only; the owner, from the same address right after, gets the full numbers", async () => {
    const o = await owner();
    const other = await createUser(t.app);
    const ip = nextIp();
    for (const proof of [
      {},
      { authorization: other.headers.authorization },
      { 'x-alerta-device-key': randomBytes(32).toString('base64url') },
      { authorization: `Bearer ${randomBytes(40).toString('base64url')}` },
    ] as Record<string, string>[]) {
      const res = await page(o.token, ip, proof);
      expect(res.statusCode, JSON.stringify(proof)).toBe(200);
      expect(res.json()).toMatchObject(masked);
      for (const number of [MUM, BROTHER, MUM.slice(1), MUM.slice(4)]) expect(res.body).not.toContain(number);
    }
    // Nor does the page's HTML, which any link holder opening the link gets with its data.
    const html = await t.app.inject({ method: 'GET', url: `/public/${o.token}/`, remoteAddress: ip });
    expect(html.body).toContain('•••••••001');
    for (const number of [MUM, BROTHER, MUM.slice(1)]) expect(html.body).not.toContain(number);

    const byKey = await page(o.token, ip, await ownerProofOf(t.app, o.token));
    expect(byKey.statusCode).toBe(200);
    expect(byKey.json()).toMatchObject(full);
    const bySession = await page(o.token, ip, { authorization: o.headers.authorization });
    expect(bySession.json()).toMatchObject(full);
  });

  it("reads the token's owner once for the owner's proof, however often the request asks (the limit's key and the route), and once for the page", async () => {
    const o = await owner();
    const proof = await ownerProofOf(t.app, o.token);
    const watch = watchStatements();
    let res: Awaited<ReturnType<typeof page>>;
    try {
      res = await page(o.token, nextIp(), proof);
    } finally {
      watch.stop();
    }
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject(full);
    const byToken = watch.seen.filter((s) => /from "users" where "token" = /.test(s.sql));
    expect(byToken).toHaveLength(2);
  });

  it("answers the owner's proof past the per-address ceiling a flooder filled; without it, or with a forged one, 429", async () => {
    const o = await owner();
    const cafe = nextIp();
    for (let i = 0; i < SECRET_PATH_MAX_PER_MINUTE; i += 1) {
      await t.app.inject({
        method: 'GET',
        url: `/api/users/not-me/${randomBytes(12).toString('base64url')}/`,
        remoteAddress: cafe,
      });
    }
    const forged: Record<string, string>[] = [{}, { 'x-alerta-device-key': randomBytes(32).toString('base64url') }];
    for (const proof of forged) {
      const refused = await page(o.token, cafe, proof);
      expect(refused.statusCode, JSON.stringify(proof)).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    for (const proof of [await ownerProofOf(t.app, o.token), { authorization: o.headers.authorization }]) {
      const mine = await page(o.token, cafe, proof);
      expect(mine.statusCode, mine.body).toBe(200);
      expect(mine.json()).toMatchObject(full);
    }
  });
});
