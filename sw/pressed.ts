/// <reference lib="WebWorker" />
import { ALERT_POST_PATH } from '../common/api/routes';
import { DEVICE_KEY_HEADER } from '../common/constants';
import type { PressedAlert } from '../common/sw-messages';
import { markHandled, sendOrQueue, wasHandled } from './alert-queue';

declare const self: ServiceWorkerGlobalScope;

/** The longest a press is held (ms): a message's `wait_ms` is bounded by it. */
const LONGEST_HOLD_MS = 30_000;

interface Hold {
  /** The last body the page gave for this key. */
  alert: PressedAlert;
  timer: ReturnType<typeof setTimeout>;
  /** Ends the wait now: the hold sends, unless its key was handled meanwhile. */
  end: () => void;
  /** Settles once the hold has sent, queued or let go of its press. */
  done: Promise<void>;
}

const held = new Map<string, Hold>();

const holdMs = (alert: PressedAlert) => Math.min(Math.max(alert.wait_ms, 0), LONGEST_HOLD_MS);

/**
 * Holds a press the page has not had answered yet. The page sends it itself (once it has a fix;
 * where the browser routes the alert POST past this worker, that request never comes through
 * here); if the tab is closed meanwhile, this worker sends the last body it was given when the
 * wait is over, through the same send-or-queue path, so the press is never lost and never sent
 * twice (the Idempotency-Key). A second message with the same key gives the body (a fix came) and
 * the wait from now: `wait_ms` 0 when the page's own send found no network, so it is queued here.
 */
export function holdPressed(alert: PressedAlert): Promise<void> {
  const hold = held.get(alert.key);
  if (hold) {
    hold.alert = alert;
    clearTimeout(hold.timer);
    hold.timer = setTimeout(hold.end, holdMs(alert));
    return hold.done;
  }
  let end!: () => void;
  const waited = new Promise<void>((resolve) => {
    end = resolve;
  });
  const done = waited.then(() => sendHeld(alert.key));
  held.set(alert.key, { alert, timer: setTimeout(end, holdMs(alert)), end, done });
  return done;
}

/** The server answered the page's own send of this key: nothing left to hold. */
export function settlePressed(key: string): void {
  markHandled(key);
  const hold = held.get(key);
  if (!hold) return;
  clearTimeout(hold.timer);
  hold.end();
}

async function sendHeld(key: string): Promise<void> {
  const latest = held.get(key)?.alert;
  held.delete(key);
  if (!latest || wasHandled(key)) return;
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
