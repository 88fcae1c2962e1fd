import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { REDIS_CLIENT_OPTIONS } from '../../plugins/rate-limit-store.js';

type Listener = () => void;

/** The Redis channel on which server processes announce changed alerts to each other. */
const CHANNEL = 'alerta:live';

/**
 * Tells the open event streams of this process that an alert changed. With a relay (Redis
 * pub/sub, when `REDIS_URL` is set) every other server process hears the change at once too;
 * streams also re-read every few seconds, which covers a relay that is down.
 */
export class LiveHub {
  private listeners = new Map<string, Set<Listener>>();
  private relay: ((alertId: string) => void) | undefined;

  /** Calls `listener` on each change of the alert; returns the unsubscribe function. */
  subscribe(alertId: string, listener: Listener): () => void {
    const set = this.listeners.get(alertId) ?? new Set<Listener>();
    set.add(listener);
    this.listeners.set(alertId, set);
    return () => {
      set.delete(listener);
      // Only its own set: once emptied and gone, a later subscriber's new one is kept.
      if (set.size === 0 && this.listeners.get(alertId) === set) this.listeners.delete(alertId);
    };
  }

  /** Announces a change (a position, a responder, the resolution) here and to the other processes. */
  publish(alertId: string): void {
    this.deliver(alertId);
    this.relay?.(alertId);
  }

  /** Tells this process's streams only (a change announced by another process). */
  deliver(alertId: string): void {
    for (const listener of this.listeners.get(alertId) ?? []) listener();
  }

  /**
   * Relays changes through Redis pub/sub: one connection publishes, one listens; a process
   * ignores its own announcements. Returns the function that disconnects both.
   */
  relayThroughRedis(url: string, onError: (error: Error) => void): () => void {
    const origin = randomUUID();
    // Publishing never waits for Redis (no queue while it is away, 100 ms per command); the
    // listener queues its one SUBSCRIBE until connected and subscribes again after a reconnect.
    const publisher = new Redis(url, REDIS_CLIENT_OPTIONS);
    const listener = new Redis(url, { ...REDIS_CLIENT_OPTIONS, enableOfflineQueue: true, commandTimeout: undefined });
    for (const connection of [publisher, listener]) connection.on('error', onError);
    listener.subscribe(CHANNEL).catch(onError);
    listener.on('message', (_channel: string, message: string) => {
      const parsed = JSON.parse(message) as { origin?: string; alert?: string };
      if (parsed.origin !== origin && typeof parsed.alert === 'string') this.deliver(parsed.alert);
    });
    this.relay = (alertId) => {
      // While Redis is away the other processes' streams still re-read every few seconds.
      if (publisher.status !== 'ready') return;
      publisher.publish(CHANNEL, JSON.stringify({ origin, alert: alertId })).catch(onError);
    };
    return () => {
      this.relay = undefined;
      publisher.disconnect();
      listener.disconnect();
    };
  }
}
