/**
 * Work that runs after an answer has gone (e-mails whose preparation depends on whether an
 * account exists, notices to the owner): started on the next turn of the event loop, failures
 * logged, and awaitable as a whole by tests and by shutdown.
 */
export class Background {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly onError: (error: Error) => void) {}

  /** Starts `work` after the current request's answer is on its way. */
  run(work: () => Promise<unknown>): void {
    const task = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .then(
        () => undefined,
        (error: Error) => this.onError(error),
      )
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  /** Resolves once nothing started is still running. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}
