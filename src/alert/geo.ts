import type { AlertBody } from './storage';

export type GeoError = 'denied' | 'unavailable' | 'timeout' | 'unsupported';
export interface Fix {
  latitude: number;
  longitude: number;
  accuracy: number;
  captured_at: string;
}
export interface GeoState {
  fix: Fix | null;
  error: GeoError | null;
}

const ERRORS: Record<number, GeoError> = { 1: 'denied', 2: 'unavailable', 3: 'timeout' };

/**
 * Watches the position from the moment the page opens, so the countdown warms the GPS,
 * and keeps the freshest fix for the send.
 */
export class PositionWatch {
  state: GeoState = { fix: null, error: null };
  private id: number | undefined;
  private listeners = new Set<(state: GeoState) => void>();

  /** Starts watching with high accuracy; no-op when already started. */
  start(): void {
    if (this.id !== undefined) return;
    if (!('geolocation' in navigator)) {
      this.update({ fix: null, error: 'unsupported' });
      return;
    }
    this.id = navigator.geolocation.watchPosition(
      (position) =>
        this.update({
          error: null,
          fix: {
            latitude: position.coords.latitude,
            longitude: position.coords.longitude,
            accuracy: position.coords.accuracy,
            captured_at: new Date(position.timestamp || Date.now()).toISOString(),
          },
        }),
      // A timeout or a lost signal keeps the last good fix; a refusal is final.
      (error) =>
        this.update({ fix: error.code === 1 ? null : this.state.fix, error: ERRORS[error.code] ?? 'unavailable' }),
      { enableHighAccuracy: true, maximumAge: 0, timeout: 30_000 },
    );
  }

  stop(): void {
    if (this.id !== undefined) navigator.geolocation.clearWatch(this.id);
    this.id = undefined;
  }

  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: (state: GeoState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The location part of the alert body: the freshest fix, or, when there is none yet, the
   * first one within `waitMs`; otherwise the reason. Never waits once permission is refused.
   */
  async forAlert(waitMs: number): Promise<Pick<AlertBody, 'location' | 'location_error'>> {
    if (!this.state.fix && this.state.error !== 'denied' && this.state.error !== 'unsupported') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, waitMs);
        const unsubscribe = this.subscribe((state) => {
          if (state.fix || state.error === 'denied') done();
        });
        function done() {
          clearTimeout(timer);
          unsubscribe();
          resolve();
        }
      });
    }
    return this.now();
  }

  /** The location part of the alert body as it would go this instant, without waiting. */
  now(): Pick<AlertBody, 'location' | 'location_error'> {
    const { fix, error } = this.state;
    if (fix) return { location: fix };
    return { location: null, location_error: error && error !== 'timeout' ? error : 'timeout' };
  }

  private update(state: GeoState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state);
  }
}
