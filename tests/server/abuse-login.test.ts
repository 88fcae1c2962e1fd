import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { DEVICE_COOKIE } from '../../server/features/accounts/devices.js';
import { REFRESH_GRACE_MS } from '../../server/features/accounts/sessions.js';
import { LOGIN_LIMITS, loginDelayMs } from '../../server/features/accounts/throttle.js';
import { nextIp, PASSWORD, verifiedAccount } from './accounts-helpers.js';
import { buildTestApp, dbLabel, suiteApp, type TestApp } from './helper.js';

const WRONG = 'Wrong-Pass-99';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const INVALID = { detail: 'No active account found with the given credentials', code: 'no_active_account' };

/** A browser: its address, User-Agent and the cookie it sends (the login device cookie, once it has one). */
interface Browser {
  ip: string;
  userAgent?: string;
  cookie?: string;
  /** Claims https through X-Forwarded-Proto. */
  https?: boolean;
}
const stranger = (): Browser => ({ ip: nextIp() });

/** The login device cookie a login answer sets, as a browser sends it back (none: undefined). */
function deviceCookieOf(res: LightMyRequestResponse): string | undefined {
  const cookie = res.cookies.find((c) => c.name === DEVICE_COOKIE);
  return cookie && `${cookie.name}=${encodeURIComponent(cookie.value)}`;
}

/** Requests as a browser sends them: from its address, with its User-Agent and cookie. */
function clientOf(t: TestApp) {
  const send = (url: string, payload: object, browser: Browser) =>
    t.app.inject({
      method: 'POST',
      url,
      payload,
      remoteAddress: browser.ip,
      headers: {
        'user-agent': browser.userAgent ?? FIREFOX,
        ...(browser.cookie ? { cookie: browser.cookie } : {}),
        ...(browser.https ? { 'x-forwarded-proto': 'https' } : {}),
      },
    });
  return {
    send,
    login: (username: string, password: string, browser: Browser) =>
      send('/api/users/auth/login/', { username, password }, browser),
    refresh: (token: string, browser: Browser) => send('/api/users/auth/refresh/', { refresh: token }, browser),
    me: (access: string) =>
      t.app.inject({ method: 'GET', url: '/api/users/me/', headers: { authorization: `Bearer ${access}` } }),
  };
}

describe(`login cannot be used to lock the owner out (${dbLabel})`, () => {
  const t = suiteApp();

  const { send, login, me } = clientOf(t);

  /** The owner logs in from a browser, which keeps the device cookie it gets. */
  async function knownBrowser(username: string, ip = nextIp()): Promise<Browser> {
    const res = await login(username, PASSWORD, { ip });
    expect(res.statusCode).toBe(200);
    return { ip, cookie: deviceCookieOf(res) };
  }
  /** What `action` made the server wait before answering (ManualClock records each delay instead of sleeping). */
  async function delaysOf<T>(action: () => Promise<T>): Promise<{ result: T; delays: number[] }> {
    const from = t.clock.slept.length;
    const result = await action();
    return { result, delays: t.clock.slept.slice(from) };
  }
  /** Strangers from `addresses` addresses each try `tries` wrong passwords (each address stays under its limit). */
  async function hammer(username: string, addresses: number, tries = LOGIN_LIMITS.perAddress): Promise<Browser[]> {
    const browsers = Array.from({ length: addresses }, stranger);
    for (const browser of browsers) {
      for (let i = 0; i < tries; i += 1) expect((await login(username, WRONG, browser)).statusCode).toBe(401);
    }
    return browsers;
  }

  it('sets a signed, HttpOnly, SameSite=Strict device cookie for /api/users/ on a successful login only', async () => {
    await verifiedAccount(t, { username: 'cookies' });
    const failed = await login('cookies', WRONG, stranger());
    expect(failed.cookies.find((c) => c.name === DEVICE_COOKIE)).toBeUndefined();
    const res = await login('cookies', PASSWORD, stranger());
    const cookie = res.cookies.find((c) => c.name === DEVICE_COOKIE)!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/users/', maxAge: 365 * 24 * 3600 });
    // Over plain http it cannot be Secure (and a client's own X-Forwarded-Proto is not believed).
    expect(cookie.secure).toBeUndefined();
    const forgedHttps = await send(
      '/api/users/auth/login/',
      { username: 'cookies', password: PASSWORD },
      { ip: nextIp(), https: true },
    );
    expect(forgedHttps.cookies.find((c) => c.name === DEVICE_COOKIE)?.secure).toBeUndefined();
    // The account, a browser id and the signature.
    expect(cookie.value.split('.')).toHaveLength(3);
  });

  it('makes the device cookie Secure behind an https proxy', async () => {
    const proxied = await buildTestApp({ TRUST_PROXY: '127.0.0.1' });
    try {
      await verifiedAccount(proxied, { username: 'secure' });
      const res = await proxied.app.inject({
        method: 'POST',
        url: '/api/users/auth/login/',
        payload: { username: 'secure', password: PASSWORD },
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.cookies.find((c) => c.name === DEVICE_COOKIE)).toMatchObject({ secure: true, httpOnly: true });
    } finally {
      await proxied.close();
    }
  });

  it('after strangers hammer an account from many addresses, the owner logs in at once from a known browser', async () => {
    await verifiedAccount(t, { username: 'owner' });
    const home = await knownBrowser('owner');
    const phone = await knownBrowser('owner');
    // About one wrong try a second from 10 addresses, each up to its own limit.
    const attackers = await hammer('owner', 10);

    // Each attacker's own address is refused for the rest of its window, whatever it sends.
    for (const attacker of attackers) {
      const refused = await login('owner', PASSWORD, attacker);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }

    // The owner's browsers: at once (no delay), even from an address the attack used.
    for (const browser of [home, { ...phone, ip: attackers[0]!.ip }]) {
      const { result, delays } = await delaysOf(() => login('owner', PASSWORD, browser));
      expect(result.statusCode, result.body).toBe(200);
      expect(delays).toEqual([]);
      expect((await me(result.json().access)).statusCode).toBe(200);
    }

    // A new browser of the owner: delayed (up to a few seconds), never refused.
    const { result, delays } = await delaysOf(() => login('owner', PASSWORD, stranger()));
    expect(result.statusCode).toBe(200);
    expect(delays).toEqual([LOGIN_LIMITS.delayMaxMs]);
    // It is known from now on.
    const fresh = { ...stranger(), cookie: deviceCookieOf(result) };
    expect((await delaysOf(() => login('owner', PASSWORD, fresh))).delays).toEqual([]);
  });

  it('slows an identifier down more with each failure from anywhere, never refusing; the same for an unknown one', async () => {
    await verifiedAccount(t, { username: 'slowed' });
    const expected = Array.from({ length: 12 }, (_, i) => loginDelayMs(i));
    expect(expected.slice(0, LOGIN_LIMITS.answeredAtOnce)).toEqual([0, 0, 0, 0, 0]);
    expect(expected.slice(LOGIN_LIMITS.answeredAtOnce)).toEqual([250, 500, 1000, 2000, 3000, 3000, 3000]);

    // Each try from a new address: the per-address limit never applies, the delay does.
    const run = async (username: string) => {
      const seen: { status: number; body: unknown; delay: number }[] = [];
      for (let i = 0; i < expected.length; i += 1) {
        const { result, delays } = await delaysOf(() => login(username, WRONG, stranger()));
        seen.push({ status: result.statusCode, body: result.json(), delay: delays[0] ?? 0 });
      }
      return seen;
    };
    const owner = await run('slowed');
    expect(owner.map((s) => s.delay)).toEqual(expected);
    expect(owner.every((s) => s.status === 401)).toBe(true);
    // An account that does not exist answers exactly alike: the limits say nothing of who exists.
    expect(await run('nobody-at-all')).toEqual(owner);
    expect(owner[0]!.body).toEqual(INVALID);
  });

  it('counts wrong passwords through a device cookie against that cookie only, not the account or address', async () => {
    await verifiedAccount(t, { username: 'typo' });
    const laptop = await knownBrowser('typo');
    const tablet = await knownBrowser('typo');
    // Five wrong passwords through the laptop's cookie: no delay, no per-address count.
    for (let i = 0; i < LOGIN_LIMITS.perDevice; i += 1) {
      const { result, delays } = await delaysOf(() => login('typo', WRONG, laptop));
      expect(result.statusCode).toBe(401);
      expect(delays).toEqual([]);
    }
    // The laptop's address and the account are untouched: another browser there is answered normally, at once.
    const sameAddress = await delaysOf(() => login('typo', WRONG, { ip: laptop.ip }));
    expect(sameAddress.result.statusCode).toBe(401);
    expect(sameAddress.delays).toEqual([]);

    // The laptop's cookie is spent for the window: it counts as an unknown browser now.
    const attackers = await hammer('typo', 1);
    const locked = attackers[0]!;
    expect((await login('typo', PASSWORD, { ...locked, cookie: laptop.cookie })).statusCode).toBe(429);
    // The tablet's cookie, from that same address, still lets the owner in at once.
    const tablet2 = await delaysOf(() => login('typo', PASSWORD, { ...tablet, ip: locked.ip }));
    expect(tablet2.result.statusCode).toBe(200);
    expect(tablet2.delays).toEqual([]);
  });

  it("trusts a device cookie only for its own account, and only when it is the server's", async () => {
    await verifiedAccount(t, { username: 'victim' });
    await verifiedAccount(t, { username: 'mallory' });
    // The attacker's own cookie (of their own account) does not pass the victim's limits.
    const attacker = await knownBrowser('mallory');
    for (let i = 0; i < LOGIN_LIMITS.perAddress; i += 1) {
      expect((await login('victim', WRONG, attacker)).statusCode).toBe(401);
    }
    expect((await login('victim', WRONG, attacker)).statusCode).toBe(429);
    // Nor does a forged one naming the victim's account.
    const victim = await knownBrowser('victim');
    const [name, value] = victim.cookie!.split('=');
    const forged = { ip: attacker.ip, cookie: `${name}=${value!.slice(0, -2)}xx` };
    expect((await login('victim', PASSWORD, forged)).statusCode).toBe(429);
    // The victim's real cookie, from that address: at once.
    expect((await login('victim', PASSWORD, { ...victim, ip: attacker.ip })).statusCode).toBe(200);
    // Malformed cookies are no device cookie: answered as any unknown browser, never a 500.
    for (const cookie of [
      `${DEVICE_COOKIE}=`,
      `${DEVICE_COOKIE}=%E0%A4%A`,
      `${DEVICE_COOKIE}=${'a.'.repeat(2000)}`,
      `${DEVICE_COOKIE}=x.y.z.w; ${DEVICE_COOKIE}=\u0000`,
      '=; ;;==',
    ]) {
      expect((await login('victim', WRONG, { ip: nextIp(), cookie })).json()).toEqual(INVALID);
    }
  });
});

describe(`the refresh grace answers only the browser that used the token, once (${dbLabel})`, () => {
  const t = suiteApp();

  const { send, refresh, me } = clientOf(t);
  const jti = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti;

  async function session(browser: Browser) {
    const account = await verifiedAccount(t);
    const res = await send('/api/users/auth/login/', { username: account.username, password: PASSWORD }, browser);
    expect(res.statusCode).toBe(200);
    return { ...(res.json() as { access: string; refresh: string }), cookie: deviceCookieOf(res) };
  }

  it('the same browser still gets through within the grace', async () => {
    const browser = stranger();
    const pair = await session(browser);
    const used = await refresh(pair.refresh, browser);
    t.clock.advance(REFRESH_GRACE_MS - 1000);
    // Its answer was lost: the same browser asks again with the old token.
    const again = await refresh(pair.refresh, browser);
    expect(again.statusCode).toBe(200);
    expect(jti(again.json().refresh)).toBe(jti(used.json().refresh));
    expect((await me(again.json().access)).statusCode).toBe(200);
  });

  it('the same browser on a new address gets through by its device cookie', async () => {
    const browser = { ...stranger(), userAgent: 'Alerta phone' };
    const pair = await session(browser);
    const withCookie = { ...browser, cookie: pair.cookie };
    const used = await refresh(pair.refresh, withCookie);
    // The phone moved from Wi-Fi to mobile data.
    const again = await refresh(pair.refresh, { ...withCookie, ip: nextIp() });
    expect(again.statusCode).toBe(200);
    expect(jti(again.json().refresh)).toBe(jti(used.json().refresh));
  });

  it('an old token replayed from another address within the grace is a reuse: the whole login ends', async () => {
    const browser = stranger();
    const pair = await session(browser);
    const used = (await refresh(pair.refresh, browser)).json();
    // A copy of the replaced token, from elsewhere, seconds later.
    const replay = await refresh(pair.refresh, stranger());
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual({ detail: 'Token is invalid or expired', code: 'token_not_valid' });
    // The login is over: the owner's new tokens stop working too.
    expect((await me(used.access)).statusCode).toBe(401);
    expect((await refresh(used.refresh, browser)).statusCode).toBe(401);
  });

  it('the same address with another User-Agent and no device cookie is another client: a reuse', async () => {
    const browser = stranger();
    const pair = await session(browser);
    const used = (await refresh(pair.refresh, browser)).json();
    expect((await refresh(pair.refresh, { ip: browser.ip, userAgent: 'curl/8.5.0' })).statusCode).toBe(401);
    expect((await me(used.access)).statusCode).toBe(401);
  });

  it('a device cookie of another account does not pass as the same browser', async () => {
    const browser = stranger();
    const pair = await session(browser);
    const other = await session(stranger());
    const used = (await refresh(pair.refresh, { ...browser, cookie: pair.cookie })).json();
    expect((await refresh(pair.refresh, { ip: nextIp(), cookie: other.cookie })).statusCode).toBe(401);
    expect((await me(used.access)).statusCode).toBe(401);
  });

  it('answers once within the grace: a second replay, even from the same browser, is a reuse', async () => {
    const browser = stranger();
    const pair = await session(browser);
    const used = (await refresh(pair.refresh, browser)).json();
    expect((await refresh(pair.refresh, browser)).statusCode).toBe(200);
    expect((await refresh(pair.refresh, browser)).statusCode).toBe(401);
    expect((await me(used.access)).statusCode).toBe(401);
  });
});
