/// <reference lib="WebWorker" />
import { ALERT_POST_PATH } from '../common/api/routes';
import { DEVICE_KEY_HEADER } from '../common/constants';
import type { PressedAlert } from '../common/sw-messages';
import { sendOrQueue, wasHandled } from './alert-queue';

declare const self: ServiceWorkerGlobalScope;

const held = new Map<string, PressedAlert>();

/**
 * Holds a press the page has not sent yet. The page sends it itself once it has a fix; if the
 * tab is closed meanwhile, this worker sends the last body it was given when the wait is over,
 * through the same send-or-queue path, so the press is never lost and never sent twice (the
 * Idempotency-Key). A second message with the same key updates the body (a fix came).
 */
export async function holdPressed(alert: PressedAlert): Promise<void> {
  const first = !held.has(alert.key);
  held.set(alert.key, alert);
  if (!first) return;
  await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(alert.wait_ms, 0), 30_000)));
  const latest = held.get(alert.key) ?? alert;
  held.delete(alert.key);
  if (wasHandled(alert.key)) return;
  await sendOrQueue(
    new Request(new URL(latest.url, self.location.origin), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'idempotency-key': latest.key,
        ...(latest.device_key ? { [DEVICE_KEY_HEADER]: latest.device_key } : {}),
      },
      body: latest.body,
    }),
  );
}

/** Reads a `PressedAlert` from a page's message, or null when it is not one. */
export function pressedFrom(data: unknown): PressedAlert | null {
  const d = data as Partial<PressedAlert> | null;
  if (!d || typeof d.url !== 'string' || typeof d.key !== 'string' || typeof d.body !== 'string') return null;
  // Only this origin's alert route: a message cannot make the worker post anywhere else.
  if (!ALERT_POST_PATH.test(d.url)) return null;
  const deviceKey =
    typeof d.device_key === 'string' && /^[A-Za-z0-9_-]{1,200}$/.test(d.device_key) ? d.device_key : null;
  return {
    url: d.url,
    key: d.key,
    body: d.body,
    wait_ms: Number(d.wait_ms) || 0,
    ...(deviceKey ? { device_key: deviceKey } : {}),
  };
}
