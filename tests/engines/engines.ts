import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';
import puppeteer from 'puppeteer-core';
import { Builder, type WebDriver } from 'selenium-webdriver';
import { chromiumArgs } from '../../playwright.config.js';
import { freePort } from '../e2e/server.js';

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

/** WebKitWebDriver on a free port, MiniBrowser in automation mode (it needs a display: run under xvfb-run). */
async function launchWebKit(): Promise<Engine> {
  const port = await freePort();
  const driverProcess: ChildProcess = spawn(WEBKIT_DRIVER, [`--port=${port}`], { stdio: 'ignore' });
  const server = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i += 1) {
    if (
      await fetch(`${server}/status`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
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
