import type { LiveView } from '../../../common/api/live.js';

/** Streams re-read this often, for changes made by another server process and for expiry (ms). */
export const RECHECK_MS = 5000;
/** A comment keeps proxies from closing a quiet stream (ms). */
export const HEARTBEAT_MS = 15_000;
const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/** Where one stream's events go: the response being written to its client. */
export interface StreamSink {
  /**
   * Writes `frame` unless the client has not read what was written before (the response's buffer
   * is still waiting to drain); false then, and the stream is dropped.
   */
  write(frame: Buffer): boolean;
  /** Ends the stream: `dropped` for a client that stopped reading, cut at once rather than flushed. */
  end(dropped: boolean): void;
}

/** What the streams need: the page's data by public id, the changes, and where failures go. */
export interface StreamsDeps {
  read(publicId: string): Promise<LiveView>;
  /** Calls `listener` on each change of the alert; returns the unsubscribe function. */
  subscribe(alertId: string, listener: () => void): () => void;
  onError(error: unknown): void;
}

/**
 * The open streams of one alert in this process, fed by one reader: a change is read and
 * serialised once, and the same frame written to every stream. One re-read timer and one
 * heartbeat for them all, stopped with the last stream.
 */
class AlertFeed {
  readonly sinks = new Set<StreamSink>();
  private data: string | undefined;
  /** The latest `live` event, encoded once for every stream. */
  private frame: Buffer | undefined;
  private reading = false;
  private stale = false;
  private readonly unsubscribe: () => void;
  private readonly timers: NodeJS.Timeout[];
  private stopped = false;

  constructor(
    private readonly deps: StreamsDeps,
    private readonly publicId: string,
    alertId: string,
    private readonly onStop: () => void,
  ) {
    this.unsubscribe = deps.subscribe(alertId, () => this.refresh());
    this.timers = [
      setInterval(() => this.refresh(), RECHECK_MS),
      setInterval(() => this.broadcast(HEARTBEAT), HEARTBEAT_MS),
    ];
  }

  /** A new stream gets the latest event at once; the first ones wait for the first read, which reaches them all. */
  add(sink: StreamSink): void {
    this.sinks.add(sink);
    if (this.frame) this.send(sink, this.frame);
    else if (!this.reading) this.refresh();
  }

  remove(sink: StreamSink): void {
    if (this.sinks.delete(sink) && this.sinks.size === 0) this.stop();
  }

  /** Reads again; a change during a read is read once more after it, never twice at once. */
  refresh(): void {
    if (this.reading) {
      this.stale = true;
      return;
    }
    this.reading = true;
    void this.readOnce().finally(() => {
      this.reading = false;
      if (this.stale && this.sinks.size > 0) {
        this.stale = false;
        this.refresh();
      }
    });
  }

  private async readOnce(): Promise<void> {
    try {
      const view = await this.deps.read(this.publicId);
      const data = JSON.stringify(view);
      if (data !== this.data) {
        this.data = data;
        this.frame = Buffer.from(`event: live\ndata: ${data}\n\n`);
        this.broadcast(this.frame);
      }
      if (view.state === 'ended') this.endAll();
    } catch (error) {
      this.deps.onError(error);
    }
  }

  private broadcast(frame: Buffer): void {
    for (const sink of this.sinks) this.send(sink, frame);
  }

  private send(sink: StreamSink, frame: Buffer): void {
    if (sink.write(frame)) return;
    this.remove(sink);
    sink.end(true);
  }

  private endAll(): void {
    const sinks = [...this.sinks];
    this.sinks.clear();
    this.stop();
    for (const sink of sinks) sink.end(false);
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe();
    for (const timer of this.timers) clearInterval(timer);
    this.onStop();
  }
}

/** Every open live stream of this process, one feed per alert. */
export class LiveStreams {
  private readonly feeds = new Map<string, AlertFeed>();

  constructor(private readonly deps: StreamsDeps) {}

  /** Open streams of the alert in this process. */
  count(alertId: string): number {
    return this.feeds.get(alertId)?.sinks.size ?? 0;
  }

  /** Adds a stream of the alert's changes; returns the function that removes it. */
  follow(alertId: string, publicId: string, sink: StreamSink): () => void {
    let feed = this.feeds.get(alertId);
    if (!feed) {
      const created = new AlertFeed(this.deps, publicId, alertId, () => {
        if (this.feeds.get(alertId) === created) this.feeds.delete(alertId);
      });
      this.feeds.set(alertId, created);
      feed = created;
    }
    const followed = feed;
    followed.add(sink);
    return () => followed.remove(sink);
  }

  /** Ends every stream (the server is closing). */
  endAll(): void {
    for (const feed of [...this.feeds.values()])
      for (const sink of [...feed.sinks]) {
        feed.remove(sink);
        sink.end(false);
      }
  }
}
