import {
  DEFAULT_COUNTDOWN_SECONDS,
  FIRST_FIX_WAIT_MS,
  PENDING_ALERT_MAX_AGE_MS,
  PRESS_HOLD_MARGIN_MS,
  QUEUED_RETRY_MS,
  RECENT_ALERT_MS,
} from '../../common/constants';
import { readDeviceKey } from '../lib/device-key';
import { type AlertResult, type Answer, alertsUrl, fetchPage, newKey, postAlert } from './api';
import { startCountdown } from './countdown';
import { followDeliveries } from './follow';
import type { PositionWatch } from './geo';
import { hasMaskedNumbers, keepWholeNumbers } from './numbers';
import { askOwnerToSignIn } from './owner-proof-asked';
import type { EmergencyState } from './phase';
import { type Opening, openingPhase } from './shell';
import { forgetAlert, forgetPage, loadAlert, loadPage, type StoredAlert, saveAlert, savePage } from './storage';
import { holdPress, onReplayed, replayQueued } from './sw-client';

export type { EmergencyState, Phase } from './phase';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The real emergency page's life: cached data at once, network refresh, countdown, send with
 * the freshest fix, queue when offline, statuses once accepted. Kept outside React so a
 * re-render can never start a second countdown or send twice.
 */
export class Emergency {
  state: EmergencyState;
  private listeners = new Set<() => void>();
  private stopCountdown: (() => void) | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private delivering = false;
  private polling = false;

  constructor(
    readonly token: string,
    readonly geo: PositionWatch,
    /** Opened from a check-in reminder (`#checkin`) to say "I'm safe": opening it is not a press. */
    private readonly fromReminder = false,
    /** A countdown the HTML already showed, which this one continues; or a cancel made before the script ran. */
    private readonly opening: Opening = {},
  ) {
    this.state = { page: opening.shell?.page ?? null, phase: openingPhase(opening, fromReminder), alert: null };
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getState = () => this.state;

  /**
   * Opens the page: opening it is the press, unless an alert from an earlier visit is still under
   * way or a check-in reminder opened it.
   */
  async start(): Promise<void> {
    void navigator.storage?.persist?.().catch(() => false);
    window.addEventListener('online', () => void this.retryNow());
    onReplayed((message) => {
      if (message.key && message.key === this.state.alert?.key && !this.state.alert.result) {
        this.handleAnswer(
          message.status < 300
            ? { ok: true, value: message.body as AlertResult }
            : { ok: false, status: message.status },
        );
      }
    });
    const { shell, cancelled } = this.opening;
    const [cached, stored] = await Promise.all([loadPage(this.token), loadAlert(this.token)]);
    const hasKey = readDeviceKey() !== null;
    // The server's copy in the HTML was read without proof (numbers masked): the owner's phone
    // keeps the whole numbers it was given before.
    const known = shell?.page ? keepWholeNumbers(shell.page, cached?.data, hasKey) : cached?.data;
    if (known) this.set({ page: known });
    if (known?.gps_enabled !== false) this.geo.start();
    // The server's own copy came with this page: nothing newer to fetch, unless this device holds
    // the owner's key, which the copy to ask for with it (the whole numbers) needs.
    const fresh = shell?.source === 'server' && !(hasKey && hasMaskedNumbers(shell.page));
    if (fresh) void savePage(this.token, shell.page);
    const refreshed = fresh ? Promise.resolve() : this.refresh();

    const age = stored ? Date.now() - stored.pressed_at : Number.POSITIVE_INFINITY;
    if (stored && !stored.result && age < PENDING_ALERT_MAX_AGE_MS) {
      // Pressed before a reload or a closed tab and never accepted: carry on, no new countdown.
      this.set({ alert: stored, phase: { name: 'queued' } });
      void this.deliver();
      return;
    }
    if (stored?.result && age < RECENT_ALERT_MS) {
      this.set({ alert: stored, phase: { name: 'sent', alert: stored.result } });
      void this.poll();
      return;
    }
    if (cancelled) return;
    // The countdown length is the owner's setting: wait briefly for it when nothing is cached.
    if (!known) await Promise.race([refreshed, sleep(2000)]);
    const { phase } = this.state;
    if (phase.name === 'loading' && this.fromReminder) {
      this.set({ phase: { name: 'ready' } });
    } else if (phase.name === 'loading' || (phase.name === 'countdown' && !this.stopCountdown)) {
      // The shell's countdown goes on from where it is on screen.
      const elapsed = phase.name === 'countdown' && shell ? performance.now() - shell.shownAt : 0;
      this.countdown(this.state.page?.countdown_seconds ?? DEFAULT_COUNTDOWN_SECONDS, elapsed);
    }
  }

  /** Stops the countdown: nothing is sent. */
  cancel(): void {
    this.stopCountdown?.();
    if (this.state.phase.name === 'countdown') this.set({ phase: { name: 'cancelled' } });
  }

  /** Sends at once (the countdown's end, or the button after a cancel or a previous alert). */
  async send(): Promise<void> {
    this.stopCountdown?.();
    if (this.state.phase.name === 'sending' || this.delivering) return;
    const gps = this.state.page?.gps_enabled !== false;
    let alert: StoredAlert = {
      key: newKey(),
      token: this.token,
      body: { mode: 'real', ...(gps ? this.geo.now() : { location: null }) },
      pressed_at: Date.now(),
    };
    const waitsForFix = gps && !alert.body.location;
    // Stored the moment it is pressed, before any wait for a fix, so a reload or a crash cannot
    // lose the press; the service worker holds it too and sends it itself if this tab is closed
    // during the wait (with "location unavailable": the fix never came). With the fix at hand it
    // goes out while it is being stored and before the page draws "sending".
    this.state = { ...this.state, alert, phase: { name: 'sending' } };
    const saved = saveAlert(alert);
    const delivered = waitsForFix ? undefined : this.deliver();
    this.set({});
    navigator.vibrate?.([300, 100, 300]);
    if (waitsForFix) {
      await saved;
      holdPress(
        alertsUrl(this.token),
        alert.key,
        alert.body,
        FIRST_FIX_WAIT_MS + PRESS_HOLD_MARGIN_MS,
        readDeviceKey()?.key,
      );
      alert = { ...alert, body: { mode: 'real', ...(await this.geo.forAlert(FIRST_FIX_WAIT_MS)) } };
      await saveAlert(alert);
      this.set({ alert });
    }
    await Promise.all([saved, delivered ?? this.deliver()]);
  }

  private countdown(seconds: number, elapsedMs = 0): void {
    this.stopCountdown = startCountdown(
      seconds,
      elapsedMs,
      (remaining) => {
        if (['loading', 'countdown'].includes(this.state.phase.name)) {
          this.set({ phase: { name: 'countdown', remaining } });
        }
      },
      () => {
        if (['loading', 'countdown'].includes(this.state.phase.name)) void this.send();
      },
    );
  }

  /** The owner signed in on this page: its data again, with the new key (the contacts' whole numbers). */
  ownerSignedIn(): Promise<void> {
    return this.refresh();
  }

  private async refresh(): Promise<void> {
    const answer = await fetchPage(this.token);
    if (answer.ok) {
      // The key this device sent was not taken as the owner's (removed, or another account's).
      if (answer.value.numbers_masked && readDeviceKey()) askOwnerToSignIn();
      this.set({ page: answer.value });
      await savePage(this.token, answer.value);
      if (answer.value.gps_enabled) this.geo.start();
      else this.geo.stop();
    } else if (answer.status === 404 || answer.status === 402) {
      if (answer.status === 404) await forgetPage(this.token);
      // A dead link stops the countdown; an alert already pressed keeps its own outcome.
      if (['loading', 'countdown'].includes(this.state.phase.name)) {
        this.stopCountdown?.();
        this.set({ phase: { name: answer.status === 404 ? 'invalid' : 'inactive' } });
      }
    }
  }

  /**
   * Posts the stored alert with its key; the same key on every try means it is sent once. The
   * device key is read at each try: signing in on this page while an alert waits makes it the owner's.
   */
  private async deliver(): Promise<void> {
    const alert = this.state.alert;
    if (!alert || alert.result || this.delivering) return;
    this.delivering = true;
    try {
      this.handleAnswer(await postAlert(this.token, alert.key, alert.body, readDeviceKey()?.key));
    } finally {
      this.delivering = false;
    }
  }

  private handleAnswer(answer: Answer<AlertResult | 'queued'>): void {
    const alert = this.state.alert;
    if (!alert || alert.result) return;
    clearTimeout(this.retryTimer);
    if (answer.ok && answer.value !== 'queued') {
      const accepted = { ...alert, result: answer.value };
      void saveAlert(accepted);
      this.set({ alert: accepted, phase: { name: 'sent', alert: answer.value } });
      void this.poll();
      return;
    }
    const status = answer.ok ? 'queued' : answer.status;
    if (status === 'queued' || status === 'network' || status === 429 || status >= 500) {
      const retryAfter = !answer.ok && answer.status === 429 ? answer.retryAfter : undefined;
      this.set({ phase: retryAfter ? { name: 'queued', retryAfter } : { name: 'queued' } });
      this.retryTimer = setTimeout(() => void this.retryNow(), retryAfter ? retryAfter * 1000 : QUEUED_RETRY_MS);
      return;
    }
    // Refused for good (dead link, no subscription, bad request): only the phone's own SMS is left.
    void forgetAlert(this.token);
    this.set({ phase: { name: status === 404 ? 'invalid' : status === 402 ? 'inactive' : 'failed' } });
  }

  /** The network may be back: let the service worker send its queue first, then confirm with the same key. */
  private async retryNow(): Promise<void> {
    if (this.state.phase.name !== 'queued') return;
    if (!navigator.onLine) {
      this.retryTimer = setTimeout(() => void this.retryNow(), QUEUED_RETRY_MS);
      return;
    }
    await replayQueued();
    await this.deliver();
  }

  /** Follows each contact's delivery until all are delivered or failed. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const current = this.state.alert?.result;
      if (!current) return;
      await followDeliveries(this.token, current, (result) => {
        if (!this.state.alert) return false;
        const alert = { ...this.state.alert, result };
        void saveAlert(alert);
        this.set({ alert, phase: { name: 'sent', alert: result } });
      });
    } finally {
      this.polling = false;
    }
  }

  private set(patch: Partial<EmergencyState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}
