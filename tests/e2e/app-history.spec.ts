import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { setProfile } from './profile.js';
import { seedUser } from './seed.js';

/**
 * The home page's alert history reads as rows of words on a small phone (320 px) and a common one
 * (390 px), in both languages, once alerts were pressed, tested and missed.
 */
const WIDTHS = [390, 320] as const;

/** Sends an alert through the emergency link, as the page does. */
async function sendAlert(base: string, token: string, mode: 'real' | 'test') {
  const res = await fetch(`${base}/api/emergency/public/${token}/alerts/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ mode, location_error: 'denied' }),
  });
  expect(res.status, await res.text()).toBeLessThan(300);
}

/**
 * Each part of each history row (time, reason, mode, SMS count): its width and how many lines it
 * takes. A word is never broken, so a part takes at most one line per word.
 */
function rowParts(page: Page) {
  return page.locator('.alert-list > li').evaluateAll((rows) =>
    rows.flatMap((row) =>
      [...row.children]
        .filter((part) => (part.textContent ?? '').trim() !== '')
        .map((part) => {
          const range = document.createRange();
          range.selectNodeContents(part);
          const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
          const text = (part.textContent ?? '').trim();
          return {
            text,
            words: text.split(/\s+/).length,
            lines: tops.size,
            width: part.getBoundingClientRect().width,
          };
        }),
    ),
  );
}

test('the alert history is rows of words at 390 and 320 px, in Portuguese and English', async ({ page, server }) => {
  const owner = await seedUser(server.url, {
    contacts: [
      { name: 'Maria Silva', phone_number: '+351912345678' },
      { name: 'TEST Rui', phone_number: '+351934567890' },
    ],
  });
  await sendAlert(server.url, owner.token, 'real');
  await sendAlert(server.url, owner.token, 'test');
  const tokens = await setProfile(server.url, owner.username, {});
  await page.addInitScript(
    ([access, refresh]) => {
      localStorage.setItem('alerta.access', access as string);
      localStorage.setItem('alerta.refresh', refresh as string);
    },
    [tokens.access, tokens.refresh],
  );

  await page.goto('/');
  for (const [language, pressed] of [
    ['Português', 'Carregou no botão'],
    ['English', 'Pressed'],
  ] as const) {
    await page.getByRole('button', { name: language }).click();
    await expect(page.locator('.alert-list > li')).toHaveCount(2);
    await expect(page.locator('.alert-list > li').first()).toContainText(pressed);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 740 });
      await page.waitForFunction((w) => window.innerWidth === w, width);
      const parts = await rowParts(page);
      expect(parts.length).toBeGreaterThanOrEqual(8);
      for (const part of parts) {
        expect(part.lines, `“${part.text}” at ${width} px (${Math.round(part.width)} px wide)`).toBeLessThanOrEqual(
          part.words,
        );
      }
    }
  }
});
