import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPeriodicJobs } from '../../server/lib/periodic.js';

/** A job whose runs stay open until released, counting how many started. */
function gatedJob() {
  const job = { started: 0, release: () => {} };
  const run = () => {
    job.started += 1;
    return new Promise<void>((resolve) => {
      job.release = resolve;
    });
  };
  return { job, run };
}

describe('periodic jobs (server/lib/periodic.ts)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs each job at start and every interval, never twice at once', async () => {
    const jobs = createPeriodicJobs(() => {});
    const { job, run } = gatedJob();
    jobs.every('slow', 1000, run);
    expect(job.started).toBe(0);
    jobs.start();
    expect(job.started).toBe(1);
    // Three turns pass while the first run is still going: none starts another.
    await vi.advanceTimersByTimeAsync(3000);
    expect(job.started).toBe(1);
    job.release();
    await vi.advanceTimersByTimeAsync(1000);
    expect(job.started).toBe(2);
    job.release();
    await jobs.stop();
  });

  it('logs a failure with the job’s name and runs the job again at its next turn', async () => {
    const errors: [string, unknown][] = [];
    const jobs = createPeriodicJobs((name, error) => errors.push([name, error]));
    let calls = 0;
    jobs.every('report', 1000, async () => {
      calls += 1;
      if (calls === 1) throw new Error('provider down');
    });
    jobs.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(errors).toEqual([['report', new Error('provider down')]]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
    await jobs.stop();
  });

  it('stops its timers and waits for the run in progress; runNow joins a run already going', async () => {
    const jobs = createPeriodicJobs(() => {});
    const { job, run } = gatedJob();
    jobs.every('purge', 1000, run);
    jobs.start();
    const joined = jobs.runNow('purge');
    expect(job.started).toBe(1);
    let stopped = false;
    const stopping = jobs.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(5000);
    expect(stopped).toBe(false);
    job.release();
    await stopping;
    await joined;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(job.started).toBe(1);
    await expect(jobs.runNow('unknown')).rejects.toThrow(/no periodic job named unknown/);
  });
});
