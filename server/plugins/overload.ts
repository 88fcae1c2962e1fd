import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { alertsRoutes } from '../../common/api/routes.js';
import type { Config } from '../config.js';
import { detailError } from '../lib/errors.js';
import { LoadSampler } from './load-sampler.js';

/** The load on this server process: mean event-loop delay (ms), heap in use and resident memory in use (bytes). */
export interface Load {
  eventLoopDelayMs: number;
  heapUsedBytes: number;
  /** Resident memory less what JavaScript freed and the allocator still keeps (load-sampler.ts). */
  rssBytes: number;
}

/** Reads the current load: the sampler's latest, or what a test says. */
export type LoadProbe = () => Load;

/** How overloaded the process is: `shed` refuses everything but an alert being sent, `full` that too. */
export type OverloadLevel = 'ok' | 'shed' | 'full';

/** How long a refused client waits before trying again (s). */
export const OVERLOAD_RETRY_AFTER_S = 10;
const MB = 2 ** 20;

/**
 * The level `load` reaches against the OVERLOAD_ thresholds: above one of the first ones,
 * `shed`; above one of the OVERLOAD_ALERT_ ones too, `full`. A first threshold of 0 turns its
 * measure off; an alert threshold of 0 never refuses an alert on its measure.
 */
export function overloadLevel(load: Load, config: Config): OverloadLevel {
  const measures: [number, number, number][] = [
    [load.eventLoopDelayMs, config.OVERLOAD_EVENT_LOOP_DELAY_MS, config.OVERLOAD_ALERT_EVENT_LOOP_DELAY_MS],
    [load.heapUsedBytes / MB, config.OVERLOAD_HEAP_USED_MB, config.OVERLOAD_ALERT_HEAP_USED_MB],
    [load.rssBytes / MB, config.OVERLOAD_RSS_MB, config.OVERLOAD_ALERT_RSS_MB],
  ];
  let level: OverloadLevel = 'ok';
  for (const [value, first, alerts] of measures) {
    if (first === 0 || value <= first) continue;
    if (alerts > 0 && value > alerts) return 'full';
    level = 'shed';
  }
  return level;
}

/** An alert being sent (the contract's `alertsRoutes.send`). */
const isAlertSend = (request: FastifyRequest) =>
  request.method === alertsRoutes.send.method && request.routeOptions.url === alertsRoutes.send.url;

/**
 * An alert the owner sends with their proof: the alert route verifies it for the per-address
 * ceiling (`passesCeiling`), and it passes the load shedding at every level too, since the load
 * is never the owner's own doing.
 */
async function isProvenAlert(request: FastifyRequest): Promise<boolean> {
  const proven = request.routeOptions.config.passesCeiling;
  return isAlertSend(request) && proven !== undefined && (await proven(request));
}

/**
 * Load shedding. Under overload every request but an alert being sent gets 503 with Retry-After
 * and `{detail, code: 'overloaded'}`; a link-only alert is refused only at the clearly higher
 * OVERLOAD_ALERT_ thresholds, and the owner's proven alert never. The gate is the first request
 * hook, before any other work on the request.
 */
export default fp(
  async function overload(app: FastifyInstance, options: { config: Config; probe?: LoadProbe }) {
    let probe = options.probe;
    if (!probe) {
      const sampler = new LoadSampler((error) =>
        app.log.warn({ err: error }, 'load sample failed; the last one stands'),
      );
      app.addHook('onClose', async () => sampler.stop());
      probe = () => sampler.load;
    }
    const read = probe;
    let last: OverloadLevel = 'ok';
    app.addHook('onRequest', async (request) => {
      const load = read();
      const level = overloadLevel(load, options.config);
      // Once per change, not per refused request: the log is no extra load.
      if (level !== last) app.log.warn({ load, level, was: last }, 'load level changed');
      last = level;
      if (level === 'ok' || (level === 'shed' && isAlertSend(request))) return;
      if (await isProvenAlert(request)) return;
      throw detailError(
        503,
        `The server is overloaded. Please try again in ${OVERLOAD_RETRY_AFTER_S} seconds.`,
        'overloaded',
        { 'retry-after': String(OVERLOAD_RETRY_AFTER_S) },
      );
    });
  },
  { name: 'overload' },
);
