import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { Load } from './overload.js';

/** How often the load is sampled (ms). */
const SAMPLE_INTERVAL_MS = 1000;
/** The delay histogram's resolution (ms): a loop running on time still shows this much. */
const RESOLUTION_MS = 10;

/** One reading of the process: memory JavaScript holds (heap in use and buffers) and the resident size. */
export interface MemoryReading {
  heapUsedBytes: number;
  /** Memory outside the heap that JavaScript objects hold: Buffers (request bodies, socket data). */
  externalBytes: number;
  rssBytes: number;
}

/**
 * Resident memory in use. RSS does not fall back when JavaScript frees memory: the allocator keeps
 * the pages and reuses them before asking the system for more, so after a spike (thousands of
 * stalled request bodies) RSS stays high for good while the process holds little. Shedding on it
 * would refuse everyone long after the load had gone. This counts RSS less what JavaScript freed
 * since (the kept pages): memory freed adds to them, memory taken again is taken from them first,
 * and RSS falling (pages given back) takes from them. Native memory that grows still counts whole.
 */
export class ResidentInUse {
  private kept = 0;
  private held: number | undefined;
  private rss: number | undefined;

  /** Takes a reading; returns the resident memory in use (bytes). */
  next(reading: MemoryReading): number {
    const held = reading.heapUsedBytes + reading.externalBytes;
    if (this.held !== undefined) this.kept = Math.max(0, this.kept + this.held - held);
    if (this.rss !== undefined && reading.rssBytes < this.rss) {
      this.kept = Math.max(0, this.kept - (this.rss - reading.rssBytes));
    }
    this.held = held;
    this.rss = reading.rssBytes;
    this.kept = Math.min(this.kept, Math.max(0, reading.rssBytes - held));
    return reading.rssBytes - this.kept;
  }
}

/**
 * Samples the process's load every second. A reading must never stop the process: once the
 * connections have taken every file descriptor, a read of /proc fails with EMFILE. So the heap
 * comes from V8 (no file), the resident size is read on its own, and a reading that fails keeps
 * the last one. This is why the server samples its own load rather than use
 * @fastify/under-pressure: that plugin's timer calls `process.memoryUsage()`, which reads
 * /proc/self/stat, with nothing to catch its EMFILE, so a flood of held connections would stop the
 * process (docs/SECURITY.md, tests/server/overload-recovery.test.ts); and it sheds on the raw
 * resident size, which `ResidentInUse` corrects.
 */
export class LoadSampler {
  private readonly histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private readonly resident = new ResidentInUse();
  private readonly timer: NodeJS.Timeout;
  private rssBytes = 0;
  private failing = false;
  /** The latest sample. */
  load: Load = { eventLoopDelayMs: 0, heapUsedBytes: 0, rssBytes: 0 };

  constructor(private readonly onError: (error: Error) => void) {
    this.histogram.enable();
    this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
    this.timer.unref();
  }

  private sample(): void {
    try {
      const mean = this.histogram.mean / 1e6;
      this.histogram.reset();
      const heap = getHeapStatistics();
      try {
        this.rssBytes = process.memoryUsage.rss();
        this.failing = false;
      } catch (error) {
        // Once per run of failures: under EMFILE it fails every second.
        if (!this.failing) this.onError(error as Error);
        this.failing = true;
      }
      const reading = {
        heapUsedBytes: heap.used_heap_size,
        externalBytes: heap.external_memory,
        rssBytes: this.rssBytes,
      };
      this.load = {
        // No sample at all in a whole interval: the loop never turned.
        eventLoopDelayMs: Number.isNaN(mean) ? Number.POSITIVE_INFINITY : Math.max(0, mean - RESOLUTION_MS),
        heapUsedBytes: heap.used_heap_size,
        rssBytes: this.resident.next(reading),
      };
    } catch (error) {
      this.onError(error as Error);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}
