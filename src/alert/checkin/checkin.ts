import { CHECKIN_NOTE_MAX, CHECKIN_SECONDS, QUEUED_RETRY_MS } from '../../../common/constants';
import { newKey, type PageData } from '../api';
import type { PositionWatch } from '../geo';
import { onReplayed, replayQueued } from '../sw-client';
import {
  type CheckinAnswer,
  type CheckinView,
  currentCheckin,
  doneKey,
  endCheckin,
  extendCheckin,
  sendCheckinLocation,
  startCheckin,
} from './api';
import { needsHomeScreen, offerReminders } from './push';

/** Why the last action did not go through, each with its own words on the page. */
export type CheckinError =
  | 'offline'
  | 'running'
  | 'inactive'
  | 'unconfirmed'
  | 'wrong_pin'
  | 'pin_locked'
  | 'proof'
  | 'too_long'
  | 'ended'
  | 'failed';

export interface CheckinState {
  /** False until `current/` answered (or could not). */
  loaded: boolean;
  checkin: CheckinView | null;
  busy: boolean;
  /** "I'm safe" waits in the service worker's queue for the network. */
  waiting: boolean;
  error: CheckinError | null;
  /** Reminders need the home-screen icon on this iPhone. */
  homeScreenHint: boolean;
}

/** The longest check-in the server takes, in the minutes the page asks for. */
export const CHECKIN_MAX_MINUTES = CHECKIN_SECONDS.max / 60;
export { CHECKIN_NOTE_MAX };

/** How often the position goes to the server while a check-in is open (ms). */
export const LOCATION_EVERY_MS = 30_000;
/** The "+15 min" extension (s). */
export const EXTEND_SECONDS = 15 * 60;

/** Whether the check-in can still end or move: running, or overdue within its grace. */
export const isOpen = (checkin: CheckinView | null) => checkin?.status === 'running' || checkin?.status === 'overdue';

/** The words for a refusal; none when it fired: the fired state, shown next, says it all. */
function errorOf(answer: CheckinAnswer<unknown>): CheckinError | null {
  if (answer.ok) return 'failed';
  if (answer.code === 'checkin_fired') return null;
  if (answer.status === 'network') return 'offline';
  if (answer.code === 'checkin_running') return 'running';
  if (answer.code === 'wrong_pin') return 'wrong_pin';
  if (answer.code === 'pin_locked') return 'pin_locked';
  // Only the owner lowers a check-in: this phone has no key of theirs (or one that was removed).
  if (answer.code === 'owner_proof_required') return 'proof';
  if (answer.code === 'checkin_too_long') return 'too_long';
  if (answer.code === 'checkin_ended') return 'ended';
  if (answer.status === 402) return 'inactive';
  if (answer.status === 403) return 'unconfirmed';
  return 'failed';
}

/**
 * The check-in on the emergency page: the server holds it, the page shows it. Its state comes
 * from `current/` at every opening, so a closed and reopened page shows it as it is.
 */
export class Checkin {
  state: CheckinState = {
    loaded: false,
    checkin: null,
    busy: false,
    waiting: false,
    error: null,
    homeScreenHint: false,
  };
  private listeners = new Set<() => void>();
  private lastSent = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private pin: string | undefined;

  constructor(
    readonly token: string,
    readonly geo: PositionWatch,
    readonly page: () => PageData | null,
  ) {}

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getState = () => this.state;

  /** Reads the current check-in and follows the network, the worker's queue and the page's visibility. */
  open(): () => void {
    const online = () => void this.retryDone();
    const visible = () => void this.sendLocation(true);
    window.addEventListener('online', online);
    document.addEventListener('visibilitychange', visible);
    const stop = onReplayed((message) => {
      if (!this.state.checkin || message.key !== doneKey(this.state.checkin.id)) return;
      // The queued "I'm safe" reached the server and was refused (no proof, a PIN locked): say why.
      if (message.status === 403) this.refused(message.body);
      void this.refresh();
    });
    void this.refresh();
    return () => {
      window.removeEventListener('online', online);
      document.removeEventListener('visibilitychange', visible);
      stop();
      clearInterval(this.timer);
      clearTimeout(this.retryTimer);
    };
  }

  async refresh(): Promise<void> {
    const answer = await currentCheckin(this.token);
    if (answer.ok) this.show(answer.value, { waiting: this.state.waiting && isOpen(answer.value) });
    else if (answer.status === 404) this.show(null, { waiting: false });
    else this.set({ loaded: true });
  }

  /** Starts a check-in: needs the server, so offline it says so at once. */
  async start(minutes: number, note: string): Promise<void> {
    if (this.state.busy) return;
    if (!navigator.onLine) return this.set({ error: 'offline' });
    this.set({ busy: true, error: null });
    const gps = this.page()?.gps_enabled !== false;
    const location = gps ? this.geo.now().location : null;
    const answer = await startCheckin(this.token, newKey(), {
      duration_seconds: Math.round(minutes * 60),
      ...(note.trim() ? { note: note.trim() } : {}),
      ...(location ? { location } : {}),
    });
    if (!answer.ok) return this.set({ busy: false, error: errorOf(answer) });
    this.lastSent = Date.now();
    this.show(answer.value, { busy: false, homeScreenHint: needsHomeScreen() });
    await offerReminders(this.token, this.page()?.push_public_key);
  }

  /** "+15 min", with the PIN when one is set. */
  async extend(pin?: string): Promise<void> {
    const checkin = this.state.checkin;
    if (!checkin || this.state.busy) return;
    this.set({ busy: true, error: null });
    const answer = await extendCheckin(this.token, checkin.id, EXTEND_SECONDS, pin);
    if (answer.ok) return this.show(answer.value, { busy: false });
    this.set({ busy: false, error: errorOf(answer) });
    if (answer.status !== 'network' && answer.status !== 400) await this.refresh();
  }

  /** "I'm safe"; offline it waits in the worker's queue and goes when the network returns. */
  async done(pin?: string): Promise<void> {
    const checkin = this.state.checkin;
    if (!checkin || this.state.busy) return;
    this.pin = pin;
    this.set({ busy: true, error: null });
    const answer = await endCheckin(this.token, checkin.id, pin);
    if (answer.ok && answer.status === 202) return this.wait();
    if (answer.ok)
      return this.show({ ...checkin, status: 'done', ended_at: new Date().toISOString() }, { busy: false });
    // Without a worker (or before it controls the page) the page keeps it and tries again itself.
    if (answer.status === 'network' || (typeof answer.status === 'number' && answer.status >= 500)) {
      return this.wait();
    }
    this.set({ busy: false, error: errorOf(answer) });
    if (answer.code === 'checkin_fired' || answer.code === 'checkin_ended') await this.refresh();
  }

  /**
   * "I'm safe" waits for the network: tried again every QUEUED_RETRY_MS as well as on `online`
   * (a server that was down comes back with no event, and not every engine has Background Sync).
   */
  private wait(): void {
    this.set({ busy: false, waiting: true });
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.retryDone(), QUEUED_RETRY_MS);
  }

  /** The network is back: the worker sends its queue, then the page makes sure with the same key. */
  private async retryDone(): Promise<void> {
    const checkin = this.state.checkin;
    if (!checkin || !this.state.waiting) return;
    await replayQueued();
    const answer = await endCheckin(this.token, checkin.id, this.pin);
    if ((answer.ok && answer.status === 202) || (!answer.ok && answer.status === 'network')) return this.wait();
    this.set({ waiting: false });
    if (!answer.ok && answer.status === 403) this.set({ error: errorOf(answer) });
    await this.refresh();
  }

  /** A queued "I'm safe" the server refused: no longer waiting, and why. */
  private refused(body: unknown): void {
    const code = (body as { code?: unknown } | null)?.code;
    this.set({
      waiting: false,
      error: errorOf({ ok: false, status: 403, ...(typeof code === 'string' ? { code } : {}) }),
    });
  }

  /** The position while the check-in is open: every 30 s at most, and when the page shows or hides. */
  private async sendLocation(force = false): Promise<void> {
    const checkin = this.state.checkin;
    if (!isOpen(checkin) || !checkin || this.page()?.gps_enabled === false) return;
    if (!force && Date.now() - this.lastSent < LOCATION_EVERY_MS) return;
    const fix = this.geo.now().location;
    if (!fix) return;
    this.lastSent = Date.now();
    await sendCheckinLocation(this.token, checkin.id, fix);
  }

  private show(checkin: CheckinView | null, patch: Partial<CheckinState> = {}): void {
    clearInterval(this.timer);
    if (isOpen(checkin)) this.timer = setInterval(() => void this.sendLocation(), LOCATION_EVERY_MS);
    this.set({ ...patch, loaded: true, checkin });
  }

  private set(patch: Partial<CheckinState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}
