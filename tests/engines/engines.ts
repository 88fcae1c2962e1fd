import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chromium } from '@playwright/test';
import puppeteer from 'puppeteer-core';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { chromiumArgs } from '../../playwright.config.js';

/**
 * The three browser engines a person in trouble may hold, each driven through its own real
 * automation protocol: Chromium through Playwright, WebKit (the engine of Safari on iPhone,
 * WebKitGTK's MiniBrowser) through WebKitWebDriver, Gecko (Firefox ESR) through WebDriver BiDi.
 * Every engine starts with a fresh profile. The scenarios see only `Engine` and `Tab`.
 */
export type EngineName = 'chromium' | 'webkit' | 'firefox';

export interface Tab {
  goto(url: string): Promise<void>;
  /**
   * Runs `body` (the text of an async function body, which may `return` a JSON value) in the page.
   * Plain text, not a function: the test's own compiled code never reaches the page.
   */
  run<T>(body: string): Promise<T>;
  close(): Promise<void>;
}

export interface TabOptions {
  /**
   * A GPS that never answers. WebKit and Firefox under automation leave the permission
   * question open, so their position never comes anyway; headless Chromium refuses at once,
   * so its page gets a geolocation that stays silent.
   */
  pendingGeolocation?: boolean;
}

export interface Engine {
  name: EngineName;
  newTab(options?: TabOptions): Promise<Tab>;
  quit(): Promise<void>;
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** What each engine needs on this machine, and the Debian package that brings it. */
export const REQUIREMENTS: Record<EngineName, { paths: string[]; packages: string }> = {
  chromium: { paths: [CHROMIUM], packages: 'chromium' },
  webkit: { paths: [WEBKIT_DRIVER, MINIBROWSER], packages: 'webkit2gtk-driver xvfb' },
  firefox: { paths: [FIREFOX], packages: 'firefox-esr' },
};

/** The paths an engine needs that are missing here. */
export const missing = (name: EngineName) => REQUIREMENTS[name].paths.filter((p) => !existsSync(p));

/** Wraps a page-side body so every engine returns its value or its error the same way. */
const wrapped = (body: string) => `(async () => { ${body} })()`;

/** Playwright's and Puppeteer's pages answer the same three calls. */
interface ScriptablePage {
  goto(url: string): Promise<unknown>;
  evaluate<T>(script: string): Promise<T>;
  close(): Promise<void>;
}

const pageTab = (page: ScriptablePage): Tab => ({
  goto: async (url) => void (await page.goto(url)),
  run: (body) => page.evaluate(wrapped(body)),
  close: () => page.close(),
});

async function launchChromium(): Promise<Engine> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs });
  const context = await browser.newContext();
  return {
    name: 'chromium',
    async newTab({ pendingGeolocation = false } = {}) {
      const page = await context.newPage();
      if (pendingGeolocation) {
        await page.addInitScript(
          'navigator.geolocation.watchPosition = () => 1; navigator.geolocation.getCurrentPosition = () => undefined;',
        );
      }
      return pageTab(page);
    },
    quit: () => browser.close(),
  };
}

async function launchFirefox(): Promise<Engine> {
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true });
  return {
    name: 'firefox',
    newTab: async () => pageTab(await browser.newPage()),
    quit: () => browser.close(),
  };
}

/** How often the driver's sockets are looked at while it starts (ms). */
const DRIVER_POLL_MS = 50;

/**
 * The TCP port process `pid` listens on, once it does: its socket inodes (/proc/PID/fd) matched
 * against the listening sockets in /proc/net/tcp and tcp6. WebKitWebDriver takes --port=0 and
 * binds a port the system picks, but does not print it.
 */
async function listeningPort(pid: number, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const inodes = new Set<string>();
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        // Closed since the listing.
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    }
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const row of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
        // sl local_address rem_address st … inode; st 0A is LISTEN, the port is hex.
        const [, local, , state, , , , , , inode] = row.trim().split(/\s+/);
        if (state === '0A' && inode && inodes.has(inode)) return Number.parseInt(local?.split(':')[1] ?? '', 16);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, DRIVER_POLL_MS));
  }
  throw new Error(`process ${pid} not listening within ${timeoutMs} ms`);
}

/** WebKitWebDriver on a port the system picks, MiniBrowser in automation mode (it needs a display: run under xvfb-run). */
async function launchWebKit(): Promise<Engine> {
  const driverProcess: ChildProcess = spawn(WEBKIT_DRIVER, ['--port=0'], { stdio: 'ignore' });
  const port = await listeningPort(driverProcess.pid as number).catch((error: Error) => {
    driverProcess.kill();
    throw error;
  });
  const server = `http://127.0.0.1:${port}`;
  const driver: WebDriver = await new Builder()
    .usingServer(server)
    .withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
    })
    .build();
  // WebDriver drives one window at a time: each tab keeps its handle and switches to it. The
  // first window stays blank and open, so closing a tab never ends the session.
  const parked = await driver.getWindowHandle();
  return {
    name: 'webkit',
    async newTab() {
      await driver.switchTo().newWindow('tab');
      const handle = await driver.getWindowHandle();
      const focus = () => driver.switchTo().window(handle);
      return {
        async goto(url) {
          await focus();
          await driver.get(url);
        },
        async run<T>(body: string) {
          await focus();
          const answer = (await driver.executeAsyncScript(
            `const done = arguments[arguments.length - 1];
             ${wrapped(body)}.then((value) => done({ value }), (error) => done({ error: String(error) }));`,
          )) as { value?: T; error?: string };
          if (answer.error !== undefined) throw new Error(answer.error);
          return answer.value as T;
        },
        async close() {
          await focus();
          await driver.close();
          await driver.switchTo().window(parked);
        },
      };
    },
    async quit() {
      await driver.quit().catch(() => undefined);
      driverProcess.kill();
    },
  };
}

/** Starts an engine with a fresh profile. */
export function launch(name: EngineName): Promise<Engine> {
  if (name === 'chromium') return launchChromium();
  if (name === 'firefox') return launchFirefox();
  return launchWebKit();
}
