/** Resolves on the next turn of the event loop, after the I/O callbacks of this one. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Work that runs after an answer has gone (e-mails whose preparation depends on whether an
 * account exists, notices to the owner): started on the next turn of the event loop, failures
 * logged, and awaitable as a whole by tests and by shutdown.
 */
export class Background {
  private readonly pending = new Set<Promise<void>>();
  private readonly closing = new AbortController();

  constructor(private readonly onError: (error: Error) => void) {}

  /** Starts `work` after the current request's answer is on its way. */
  run(work: () => Promise<unknown>): void {
    const task = nextTurn()
      .then(work)
      .then(
        () => undefined,
        (error: Error) => this.onError(error),
      )
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Aborted once the server closes: work waiting to try again gives up rather than hold the shutdown. */
  get signal(): AbortSignal {
    return this.closing.signal;
  }

  /** The server is closing: waits end (see `signal`); what runs goes on, and `idle` waits for it. */
  stop(): void {
    this.closing.abort();
  }

  /** Resolves once nothing started is still running. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
