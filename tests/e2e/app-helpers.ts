import { type APIRequestContext, expect, type Page } from '@playwright/test';
import { outboxJsonPath } from './server.js';

/** A fresh username for each run (the server is shared by the files of one worker). */
export const uniqueName = (prefix: string) => `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;

/** The newest link in the dev outbox's e-mail to `to` whose path contains `fragment`, once it is there. */
export async function mailedLink(request: APIRequestContext, to: string, fragment: string): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(
      async () => {
        const outbox = (await (await request.get(outboxJsonPath)).json()) as {
          emails: { to: string; text: string }[];
        };
        const mail = outbox.emails.find((email) => email.to.includes(to) && email.text.includes(fragment));
        link = mail?.text.match(/https?:\/\/\S+/g)?.find((url) => url.includes(fragment));
        return link;
      },
      { message: `an e-mail to ${to} with a ${fragment} link`, timeout: 10_000 },
    )
    .toBeDefined();
  return link as string;
}

/**
 * The page signed in as `tokens`, stored as the app stores them, on every page load until the app
 * itself changes them (a refresh, a logout).
 */
export function signedIn(page: Page, tokens: { access: string; refresh: string }) {
  return page.addInitScript(
    ([access, refresh]) => {
      if (!localStorage.getItem('alerta.access')) {
        localStorage.setItem('alerta.access', access!);
        localStorage.setItem('alerta.refresh', refresh!);
      }
    },
    [tokens.access, tokens.refresh],
  );
}

/**
 * A verified user with an active premium subscription, made through the API, and the
 * page logged in as them (tokens stored as the app stores them).
 */
export async function premiumUser(page: Page, request: APIRequestContext) {
  const username = uniqueName('e2e');
  const email = `${username}@example.com`;
  const password = 'Segura-2026';
  const registered = await request.post('/api/users/registration/', {
    data: { username, email, password1: password, password2: password, accept_terms: true },
  });
  if (!registered.ok()) throw new Error(`registration: ${registered.status()} ${await registered.text()}`);
  await request.get(await mailedLink(request, email, '/verify-email/'), { maxRedirects: 0 });
  const tokens = (await (await request.post('/api/users/auth/login/', { data: { username, password } })).json()) as {
    access: string;
    refresh: string;
  };
  const headers = { Authorization: `Bearer ${tokens.access}` };
  const { url } = (await (
    await request.post('/api/billing/checkout/', { headers, data: { plan: 'premium' } })
  ).json()) as {
    url: string;
  };
  const paid = await request.post(`${url}/pay`, { headers: { Accept: 'application/json' } });
  if (!paid.ok()) throw new Error(`pay: ${paid.status()} ${await paid.text()}`);
  await signedIn(page, tokens);
  return { username, email, password, tokens };
}

export const VIEWPORTS = [
  { name: 'mobile', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

/** Saves a full-page screenshot of `name` at both viewports under test-results/screenshots/. */
export async function screenshots(page: Page, name: string) {
  const original = page.viewportSize();
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    // Until the page has laid out at the new size and painted it.
    await page.waitForFunction((width) => window.innerWidth === width, viewport.width);
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null)))),
    );
    await page.screenshot({
      path: `test-results/screenshots/${name}-${viewport.width}x${viewport.height}.png`,
      fullPage: true,
    });
  }
  if (original) await page.setViewportSize(original);
}
