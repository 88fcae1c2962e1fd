/// <reference lib="WebWorker" />
import { ALERT_POST_PATH } from '../common/api/routes';
import { DEVICE_KEY_HEADER } from '../common/constants';
import type { PressedAlert } from '../common/sw-messages';
import { sendOrQueue, wasHandled } from './alert-queue';

declare const self: ServiceWorkerGlobalScope;

/** The longest a press is held (ms), from the first message for its key: later ones never hold it longer. */
const LONGEST_HOLD_MS = 30_000;

interface Hold {
  /** The last body the page gave for this key. */
  alert: PressedAlert;
  /** Waits `ms` (at most until the hold's deadline), then sends. */
  wait: (ms: number) => void;
  /** Ends the hold now: it sends, or lets go of the press (`send` false: the server answered the page). */
  end: (send: boolean) => void;
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
 * the wait from now, never past the first message's deadline: `wait_ms` 0 when the page's own
 * send found no network, so it is sent or queued here at once.
 */
export function holdPressed(alert: PressedAlert): Promise<void> {
  const current = held.get(alert.key);
  if (current) {
    current.alert = alert;
    current.wait(holdMs(alert));
    return current.done;
  }
  const deadline = Date.now() + LONGEST_HOLD_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let finish!: (send: boolean) => void;
  const ended = new Promise<boolean>((resolve) => {
    finish = resolve;
  });
  const hold: Hold = {
    alert,
    wait(ms) {
      clearTimeout(timer);
      timer = setTimeout(() => hold.end(true), Math.min(ms, Math.max(0, deadline - Date.now())));
    },
    // Gone from the map at once: a message for the key after this starts a hold of its own.
    end(send) {
      clearTimeout(timer);
      if (held.get(alert.key) === hold) held.delete(alert.key);
      finish(send);
    },
    done: ended.then((send) => (send ? sendHeld(hold.alert) : undefined)),
  };
  held.set(alert.key, hold);
  hold.wait(holdMs(alert));
  return hold.done;
}

/** The server answered the page's own send of this key: the worker lets go of the press it holds (a key it holds none of changes nothing). */
export function settlePressed(key: string): void {
  held.get(key)?.end(false);
}

/**
 * Sends a held press, or queues it. A wait that ran out is moot once a request with its key went
 * through this worker (Safari, Firefox: the page's POST is sent or queued by the fetch handler);
 * a press handed over with no wait (the page's own POST failed) is sent or queued whatever went
 * before: a refusal the page was given (429) is no answer to it, and the queue and the server
 * both know its key.
 */
async function sendHeld(latest: PressedAlert): Promise<void> {
  if (latest.wait_ms > 0 && wasHandled(latest.key)) return;
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

/** An Idempotency-Key as the page makes them (a UUID): anything else in a message is not a press. */
const PRESS_KEY = /^[A-Za-z0-9-]{1,100}$/;

/** Reads a `PressedAlert` from a page's message, or null when it is not one. */
export function pressedFrom(data: unknown): PressedAlert | null {
  const d = data as Partial<PressedAlert> | null;
  if (!d || typeof d.url !== 'string' || typeof d.key !== 'string' || typeof d.body !== 'string') return null;
  if (!PRESS_KEY.test(d.key)) return null;
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
