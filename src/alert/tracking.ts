import { LIVE_MIN_UPDATE_MS, LIVE_MOVE_METRES, LIVE_TRACKING_MS, LIVE_UPDATE_MS } from '../../common/constants';
import type { Fix, PositionWatch } from './geo';
import { needsOwnerProof, postPosition } from './live-api';
import { askOwnerToSignIn } from './owner-proof-asked';
import { replayQueued } from './sw-client';

export interface TrackingState {
  status: 'tracking' | 'paused' | 'stopped';
  /** When the last position was accepted (or queued), epoch ms. */
  lastSentAt: number | null;
  /** The last position was refused for want of the owner's proof (the owner's alert, a page without its key). */
  needsOwner?: boolean;
}

/** Distance between two fixes in metres (haversine). */
export function metresBetween(a: Pick<Fix, 'latitude' | 'longitude'>, b: Pick<Fix, 'latitude' | 'longitude'>) {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

/**
 * Sends the position after an alert while the page stays open: every 30 s, or as soon as
 * it has moved more than 50 m (at most every 10 s), for at most 60 minutes after the alert,
 * never while the page is hidden. Offline, the service worker queues each update like the
 * alert. Stops for good when the server says the alert is over or the plan has no GPS; says so,
 * and goes on, while the server wants the owner's proof for it.
 */
export class LiveTracker {
  state: TrackingState = { status: 'tracking', lastSentAt: null };
  private listeners = new Set<() => void>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private unsubscribe: (() => void) | undefined;
  private lastFix: Fix | null;
  private lastAttempt = 0;
  private sending = false;

  constructor(
    private readonly token: string,
    private readonly alertId: string,
    private readonly geo: PositionWatch,
    /** When the alert was pressed (epoch ms): tracking ends 60 minutes later. */
    private readonly startedAt: number,
    /** The position the alert went out with, so an unchanged one is not sent again at once. */
    initial: Fix | null,
  ) {
    this.lastFix = initial;
    this.lastAttempt = Date.now();
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  getState = () => this.state;

  start(): void {
    if (this.timer || this.state.status === 'stopped') return;
    this.geo.start();
    this.unsubscribe = this.geo.subscribe(() => void this.tick());
    this.timer = setInterval(() => void this.tick(), 5000);
    document.addEventListener('visibilitychange', this.onVisibility);
    window.addEventListener('online', this.onOnline);
    void this.tick();
  }

  /** Stops sending (the alert is over, the plan has no GPS, or the page goes away). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    document.removeEventListener('visibilitychange', this.onVisibility);
    window.removeEventListener('online', this.onOnline);
    this.set({ status: 'stopped' });
  }

  private onVisibility = () => void this.tick();
  // Updates queued offline go at once when the network returns (iOS has no Background Sync).
  private onOnline = () => void replayQueued();

  private async tick(): Promise<void> {
    if (this.state.status === 'stopped' || this.sending) return;
    const now = Date.now();
    if (now > this.startedAt + LIVE_TRACKING_MS) return this.stop();
    if (document.visibilityState === 'hidden') {
      if (this.state.status !== 'paused') this.set({ status: 'paused' });
      return;
    }
    if (this.state.status === 'paused') this.set({ status: 'tracking' });
    const fix = this.geo.state.fix;
    if (!fix) return;
    const since = now - this.lastAttempt;
    const moved = this.lastFix ? metresBetween(this.lastFix, fix) > LIVE_MOVE_METRES : true;
    if (since < LIVE_UPDATE_MS && !(moved && since >= LIVE_MIN_UPDATE_MS)) return;
    this.sending = true;
    this.lastAttempt = now;
    try {
      const outcome = await postPosition(this.token, this.alertId, fix);
      const { status } = outcome;
      if (status === 201 || status === 202) {
        this.lastFix = fix;
        this.set({ lastSentAt: now, needsOwner: false });
      } else if (needsOwnerProof(outcome)) {
        // Kept going: once the owner signs in on this page, the next position carries the key.
        askOwnerToSignIn();
        this.set({ needsOwner: true });
      } else if (status === 402 || status === 404 || status === 409) {
        this.stop();
      }
    } finally {
      this.sending = false;
    }
  }

  private set(patch: Partial<TrackingState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}
