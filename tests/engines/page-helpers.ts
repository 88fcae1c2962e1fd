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
export const CONTROLLED = 'return Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);';
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
