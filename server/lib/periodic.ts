/**
 * The server's periodic jobs, in one place: each runs when the server is ready and then every
 * `everyMs`, never twice at once in a process; a failure is logged and the job runs again at its
 * next turn. What a job does must be safe in every process at once and after a restart: it works
 * on rows with a due time and takes them under a lease (the job engine, `server/jobs/`), or is idempotent.
 * Stopping clears the timers and waits for the runs in progress.
 */
export interface PeriodicJobs {
  /** Adds a job; `name` appears in the log when it fails. */
  every(name: string, everyMs: number, run: () => Promise<unknown>): void;
  /** Runs every job once now and starts their timers (the server's onReady). */
  start(): void;
  /** Clears the timers and waits for the runs in progress (the server's close). */
  stop(): Promise<void>;
  /** Runs one job now, unless a run of it is in progress (then waits for that one). */
  runNow(name: string): Promise<void>;
}

interface Job {
  everyMs: number;
  run: () => Promise<unknown>;
  running?: Promise<void> | undefined;
  timer?: NodeJS.Timeout;
}

export function createPeriodicJobs(onError: (name: string, error: unknown) => void): PeriodicJobs {
  const jobs = new Map<string, Job>();
  let started = false;

  function runNow(name: string): Promise<void> {
    const job = jobs.get(name);
    if (!job) return Promise.reject(new Error(`no periodic job named ${name}`));
    job.running ??= job
      .run()
      .then(
        () => undefined,
        (error: unknown) => onError(name, error),
      )
      .finally(() => {
        job.running = undefined;
      });
    return job.running;
  }

  function schedule(name: string, job: Job) {
    void runNow(name);
    job.timer = setInterval(() => void runNow(name), job.everyMs);
    job.timer.unref();
  }

  return {
    every(name, everyMs, run) {
      if (jobs.has(name)) throw new Error(`periodic job ${name} added twice`);
      const job: Job = { everyMs, run };
      jobs.set(name, job);
      if (started) schedule(name, job);
    },
    start() {
      if (started) return;
      started = true;
      for (const [name, job] of jobs) schedule(name, job);
    },
    async stop() {
      started = false;
      for (const job of jobs.values()) clearInterval(job.timer);
      await Promise.all([...jobs.values()].map((job) => job.running));
    },
    runNow,
  };
}
