import type { EngineName, Tab } from './engines.js';

/** Every engine a page that matters to a person in trouble is tested on. */
export const ENGINES: EngineName[] = ['chromium', 'webkit', 'firefox'];
/** How often `until` looks again (ms). */
export const POLL_MS = 250;
export const watch = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something truthy; fails with the last value after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await probe().catch(() => undefined);
    if (last) return last;
    await watch(POLL_MS);
  }
  throw new Error(`timed out waiting for ${what}; last saw ${JSON.stringify(last)}`);
}

// Page-side snippets: bodies of async functions, run by every engine as they are.
export const BODY_TEXT = 'return document.body ? document.body.innerText : "";';
const CONTROLLED = 'return Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);';
/**
 * What the page knows of its service worker and caches: the registration's workers' states and
 * the number of entries in each cache (a wait for control that fails says why, not just "false").
 * WebKit has been seen not to answer getRegistration(): it is given 2 s.
 */
const WORKER_DIAGNOSIS = `
  const state = (worker) => (worker ? worker.state : null);
  const registration = await Promise.race([
    navigator.serviceWorker.getRegistration(),
    new Promise((resolve) => setTimeout(() => resolve('no answer'), 2000)),
  ]);
  const cached = {};
  for (const name of await caches.keys()) cached[name] = (await (await caches.open(name)).keys()).length;
  const answered = registration && typeof registration === 'object';
  return {
    url: location.href,
    controlled: Boolean(navigator.serviceWorker.controller),
    registration: answered
      ? { installing: state(registration.installing), waiting: state(registration.waiting), active: state(registration.active) }
      : registration || null,
    caches: cached,
  };`;

/** Waits for a service worker to control the page; on timeout the error says what the page knows of its worker. */
export async function untilControlled(tab: Tab, timeoutMs?: number): Promise<void> {
  await until('the service worker in control', () => tab.run<boolean>(CONTROLLED), timeoutMs).catch(
    async (error: Error) => {
      const seen = await tab.run<unknown>(WORKER_DIAGNOSIS).catch((failed: Error) => failed.message);
      throw new Error(`${error.message}; the page's worker and caches: ${JSON.stringify(seen)}`);
    },
  );
}

/** Clicks the enabled button labelled `label`; false while there is none. */
export const click = (label: string) => `
  const button = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === ${JSON.stringify(label)});
  if (!button || button.disabled) return false;
  button.click();
  return true;`;

/** Waits for `text` on the page; on timeout the error shows what the page said instead. */
export async function waitForText(tab: Tab, text: string, timeoutMs?: number): Promise<void> {
  let seen = '';
  await until(
    `"${text}"`,
    async () => {
      seen = await tab.run<string>(BODY_TEXT);
      return seen.includes(text);
    },
    timeoutMs,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; the page said: ${JSON.stringify(seen)}`);
  });
}

/** The seeded users' password (tests/e2e/seed.ts). */
export const PASSWORD = 'correct horse 42';

/** Fills the page's sign-in ("É o seu telemóvel?"), opened; false while it is not there. */
const fillSignIn = (username: string) => `
  const form = document.querySelector('details.owner-sign-in form');
  if (!form) return false;
  form.closest('details').open = true;
  form.querySelector('input[name="username"]').value = ${JSON.stringify(username)};
  form.querySelector('input[name="password"]').value = ${JSON.stringify(PASSWORD)};
  return true;`;

/** Signs the owner in on the emergency page: from then on its calls carry this device's key. */
export async function signInOnPage(tab: Tab, username: string): Promise<void> {
  await until('the sign-in form', () => tab.run<boolean>(fillSignIn(username)));
  await until('"Iniciar sessão"', () => tab.run<boolean>(click('Iniciar sessão')));
  await waitForText(tab, 'Este botão é agora seu');
}
