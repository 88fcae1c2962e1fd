type Listener = () => void;

/**
 * Tells the open event streams of this process that an alert changed. Streams also
 * re-read every few seconds, which covers changes made by other server processes.
 */
export class LiveHub {
  private listeners = new Map<string, Set<Listener>>();

  /** Calls `listener` on each change of the alert; returns the unsubscribe function. */
  subscribe(alertId: string, listener: Listener): () => void {
    const set = this.listeners.get(alertId) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(alertId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(alertId);
    };
  }

  /** Announces a change (a position, a responder, the resolution). */
  publish(alertId: string): void {
    for (const listener of this.listeners.get(alertId) ?? []) listener();
  }
}
