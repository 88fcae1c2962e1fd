import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { chromiumArgs } from '../playwright.config.js';
import { startLink } from '../tests/e2e/proxy.js';
import { LISBON } from './fixtures.js';
import type { LoopDelay } from './server.js';
import type { BenchServer } from './server-client.js';
import { type Summary, summarize } from './stats.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Slow 4G as Lighthouse defines it: 150 ms round trip, 1.6 Mbps down, 750 kbps up. */
export const SLOW_4G = { latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 };
export const CPU_SLOWDOWN = 4;

declare global {
  interface Window {
    __bench: { countdownAt?: number; sendingAt: number[]; pressedAt: number[] };
  }
}

/**
 * Page-side marks, installed before any page script runs: when the countdown element first
 * appears (ms since navigation start), each time the page enters its `sending` phase, and each
 * click, as the browser dispatches it, before any of the page's handlers (epoch ms, comparable
 * with the server's clock on this machine).
 */
function installMarks(): void {
  window.__bench = { sendingAt: [], pressedAt: [] };
  window.addEventListener('click', () => window.__bench.pressedAt.push(performance.timeOrigin + performance.now()), {
    capture: true,
  });
  let sending = false;
  const observer = new MutationObserver(() => {
    if (window.__bench.countdownAt === undefined && document.querySelector('[data-testid="countdown"]')) {
      window.__bench.countdownAt = performance.now();
      // COUNTDOWN_SHOWN below (this function runs in the page, where no outer name exists).
      console.debug('bench:countdown-shown');
    }
    const now = document.querySelector('main.phase-sending') !== null;
    if (now && !sending) window.__bench.sendingAt.push(performance.timeOrigin + performance.now());
    sending = now;
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
}

async function newContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ locale: 'en-GB' });
  await context.addInitScript(installMarks);
  return context;
}

const COUNTDOWN_SHOWN = 'bench:countdown-shown';

/**
 * Opens the page and returns the time from navigation start to the countdown on screen. The
 * page's own mark says when, through the console: polling for it from here (waitForFunction)
 * would inject the driver's script into the page and run it on its main thread while it
 * loads, inside the time measured, and in no floor's.
 */
async function countdownAfterNavigation(page: Page, url: string): Promise<number> {
  const shown = page.waitForEvent('console', { predicate: (m) => m.text() === COUNTDOWN_SHOWN, timeout: 30_000 });
  await page.goto(url, { waitUntil: 'commit' });
  await shown;
  return page.evaluate(() => window.__bench.countdownAt as number);
}

/** Opens `url` and returns the time from navigation start to the end of its load event. */
async function loadedAfterNavigation(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'load' });
  return page.evaluate(
    () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
  );
}

/** The warm floor's page: the smallest file the service worker holds, a page of its own once opened. */
export const WARM_FLOOR_PATH = '/favicon.svg';
/** The cold floor's page, written into the build for the run: one static file of the page's size. */
const COLD_FLOOR_PATH = '/bench-floor.html';

/** A static HTML page of `bytes` bytes that compresses no better than the page's scripts already are. */
function writeColdFloor(distDir: string, bytes: number): void {
  const head = '<!doctype html><title>floor</title><!--';
  const tail = '-->';
  const filler = randomBytes(bytes)
    .toString('base64')
    .slice(0, Math.max(0, bytes - head.length - tail.length));
  writeFileSync(path.join(distDir, COLD_FLOOR_PATH), `${head}${filler}${tail}`);
}

/** Throttles `page` as the cold loads are: slow 4G and a 4× slower CPU. */
async function throttle(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, ...SLOW_4G });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
}

export interface PageLoadResult {
  warmOfflineMs: Summary;
  /** The floor of warm offline: a new tab opening the service worker's smallest file, offline (load event end). */
  warmOfflineFloorMs: Summary;
  /** The same, navigating a tab that already shows the page (no renderer process to start). */
  warmOfflineSameTabMs: Summary;
  coldSlow4gMs: Summary;
  /** The floor of the cold load: one static file of the page's cold transfer size, same link and CPU (load event end). */
  coldSlow4gFloorMs: Summary;
  /** Bytes over the network on a cold load until the countdown shows (page, scripts, styles, data). */
  coldTransferBytes: Summary;
}

/** What the page had downloaded when its countdown showed, as the network carried it (compressed). */
const transferred = (page: Page) =>
  page.evaluate(() =>
    [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
      .filter((entry) => (entry as PerformanceResourceTiming).responseEnd <= (window.__bench.countdownAt ?? 0))
      .reduce((sum, entry) => sum + (entry as PerformanceResourceTiming).transferSize, 0),
  );

/**
 * Part 2: navigation → countdown visible. (a) warm: the service worker and the page's data
 * are cached from an earlier visit and the link to the server is cut; (b) cold: a fresh
 * profile over slow 4G with the CPU slowed 4×. Each beside its floor, measured in the same run:
 * (a) the worker's smallest file in a new tab, offline; (b) one static file of the page's
 * size, written into `distDir`, over the same link.
 */
export async function measurePageLoad(
  server: BenchServer,
  runs: { cold: number; warm: number },
  distDir: string,
): Promise<PageLoadResult> {
  const token = await server.seed({ countdown: 10 });
  const link = await startLink(Number(new URL(server.url).port));
  const browser = await chromium.launch({ executablePath, args: chromiumArgs });
  try {
    const url = `${link.url}/public/${token}/`;
    /** One cold load of the page: its time to the countdown and the bytes it had downloaded by then. */
    const coldPage = async () => {
      const context = await newContext(browser);
      const page = await context.newPage();
      await throttle(context, page);
      const ms = await countdownAfterNavigation(page, url);
      const sent = await transferred(page);
      await context.close();
      return { ms, sent };
    };
    // A first load, not counted, gives the size of the floor's file (and compiles the server's
    // route, which a static file does not need); then the page and its floor take turns, so a
    // slow moment of the machine weighs on both sides of the ratio alike.
    writeColdFloor(distDir, (await coldPage()).sent);
    const cold: number[] = [];
    const bytes: number[] = [];
    const coldFloor: number[] = [];
    for (let i = 0; i < runs.cold; i += 1) {
      const { ms, sent } = await coldPage();
      cold.push(ms);
      bytes.push(sent);
      const context = await browser.newContext();
      const page = await context.newPage();
      await throttle(context, page);
      coldFloor.push(await loadedAfterNavigation(page, `${link.url}${COLD_FLOOR_PATH}`));
      await context.close();
    }

    const context = await newContext(browser);
    const first = await context.newPage();
    await countdownAfterNavigation(first, url);
    await first.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
    // Cancelled, so the visit only fills the caches and nothing is pressed.
    await first.getByRole('button', { name: 'Cancel' }).click();
    await first.close();
    link.down();
    const warm: number[] = [];
    const sameTab: number[] = [];
    const warmFloor: number[] = [];
    for (let i = 0; i < runs.warm; i += 1) {
      // A new tab, as when the link is opened from the home screen: its renderer process starts too.
      const page = await context.newPage();
      warm.push(await countdownAfterNavigation(page, url));
      await page.getByRole('button', { name: 'Cancel' }).click();
      // The link opened again in that tab: only the page's own work remains.
      sameTab.push(await countdownAfterNavigation(page, url));
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.close();
      const blank = await context.newPage();
      warmFloor.push(await loadedAfterNavigation(blank, `${link.url}${WARM_FLOOR_PATH}`));
      await blank.close();
    }
    await context.close();
    return {
      warmOfflineMs: summarize(warm),
      warmOfflineFloorMs: summarize(warmFloor),
      warmOfflineSameTabMs: summarize(sameTab),
      coldSlow4gMs: summarize(cold),
      coldSlow4gFloorMs: summarize(coldFloor),
      coldTransferBytes: summarize(bytes),
    };
  } finally {
    await browser.close();
    await link.close();
  }
}

export interface PressResult {
  wholePathMs: Summary;
  /** How far the server's epoch clock was ahead of the page's (subtracted from the whole path), and the round trip that read it. */
  clockOffset: ClockOffset;
  serverPartMs: Summary;
  /** The server's event-loop delay during the presses: high values mean a busy machine, not slow code. */
  serverLoopDelayMs: LoopDelay;
}

export interface ClockOffset {
  offsetMs: number;
  roundTripMs: number;
}

/**
 * How far the server's epoch clock is ahead of the page's, the way NTP reads it: the fastest of
 * 20 round trips to the server's clock route, its answer set against the round trip's midpoint
 * (within half that round trip). Each side counts from its own start (`timeOrigin`), taken from
 * the wall clock: when the machine sets its wall clock between the server's start and the page's,
 * their marks are that far apart, and a press was once "answered" 100 ms before it was made.
 */
function clockOffset(page: Page): Promise<ClockOffset> {
  return page.evaluate(async () => {
    let best = { offsetMs: 0, roundTripMs: Number.POSITIVE_INFINITY };
    for (let i = 0; i < 20; i += 1) {
      const sent = performance.timeOrigin + performance.now();
      const { now } = (await (await fetch('/bench/clock', { cache: 'no-store' })).json()) as { now: number };
      const back = performance.timeOrigin + performance.now();
      if (back - sent < best.roundTripMs) best = { offsetMs: now - (sent + back) / 2, roundTripMs: back - sent };
    }
    return best;
  });
}

/**
 * Part 3: from the press of the send button (the click as the browser dispatches it, before the
 * page's own handler) to the first call of the SMS port, with the position already known, over
 * loopback with the service worker in control; and the server's own part, from the request
 * reaching Fastify to that call. Alerts go one after another. (The countdown's end calls the
 * same send.) The server's marks are set to the page's clock (`clockOffset`). The mark was once the sending phase on screen: the page renders it while its
 * request is already on its way, late enough now and then that an SMS went out "before" it.
 */
export async function measurePressToProvider(server: BenchServer, alerts: number): Promise<PressResult> {
  const token = await server.seed({ countdown: 0 });
  const browser = await chromium.launch({ executablePath, args: chromiumArgs });
  try {
    const context = await newContext(browser);
    await context.grantPermissions(['geolocation']);
    await context.setGeolocation(LISBON);
    const page = await context.newPage();
    const keys: string[] = [];
    page.on('request', (request) => {
      const key = request.headers()['idempotency-key'];
      if (request.method() === 'POST' && key && !request.serviceWorker()) keys.push(key.toLowerCase());
    });
    // Countdown 0: opening the page sends the first alert; it warms the service worker and the GPS.
    await page.goto(`${server.url}/public/${token}/`);
    await page.getByTestId('sent').waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
    await page.getByTestId('location').filter({ hasText: '12 m' }).waitFor({ timeout: 10_000 });
    const skip = await page.evaluate(() => window.__bench.sendingAt.length);
    const clicksBefore = await page.evaluate(() => window.__bench.pressedAt.length);
    // A key from before the loop may be posted again during it (the first alert retried after a
    // 503 while the server was shedding load), so the loop's alerts are its new keys, once each.
    const earlier = new Set(keys);
    for (let i = 0; i < alerts; i += 1) {
      await page.getByRole('button', { name: 'Send a new alert' }).click();
      await page.waitForFunction((n) => window.__bench.sendingAt.length === n, skip + i + 1);
      await page.getByTestId('sent').waitFor({ timeout: 30_000 });
    }
    const marks = (await page.evaluate(() => window.__bench.pressedAt)).slice(clicksBefore);
    const clock = await clockOffset(page);
    await context.close();

    const timings = await server.timings();
    const byKey = new Map(timings.alerts.map((t) => [t.key, t]));
    const pressed = [...new Set(keys)].filter((key) => !earlier.has(key));
    if (pressed.length !== alerts) throw new Error(`${alerts} presses posted ${pressed.length} new alerts`);
    // Each alert's press is the last click before its request arrived (on the page's clock): a
    // click the page let pass without a new alert (one landing as the page redrew) once paired
    // every alert before it with the next one's click, timing its SMS "before" its press.
    const used = new Set<number>();
    const measured = pressed.map((key) => {
      const timing = byKey.get(key);
      if (!timing) throw new Error(`alert ${key} has no server timing`);
      const arrived = timing.received - clock.offsetMs;
      const mark = marks.filter((m) => m <= arrived).at(-1);
      if (mark === undefined || used.has(mark)) throw new Error(`alert ${key} has no click of its own before it`);
      used.add(mark);
      return { whole: timing.firstSend - clock.offsetMs - mark, server: timing.firstSend - timing.received };
    });
    return {
      wholePathMs: summarize(measured.map((m) => m.whole)),
      clockOffset: clock,
      serverPartMs: summarize(measured.map((m) => m.server)),
      serverLoopDelayMs: timings.loopDelay,
    };
  } finally {
    await browser.close();
  }
}
