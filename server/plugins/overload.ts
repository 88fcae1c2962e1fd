import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { alertsRoutes } from '../../common/api/routes.js';
import type { Config } from '../config.js';
import { detailError } from '../lib/errors.js';

/** The load on this server process: mean event-loop delay (ms), heap in use and resident memory (bytes). */
export interface Load {
  eventLoopDelayMs: number;
  heapUsedBytes: number;
  rssBytes: number;
}

/** Reads the current load: under-pressure's latest sample, or what a test says. */
export type LoadProbe = () => Load;

/** How overloaded the process is: `shed` refuses everything but an alert being sent, `full` that too. */
export type OverloadLevel = 'ok' | 'shed' | 'full';

/** How long a refused client waits before trying again (s). */
export const OVERLOAD_RETRY_AFTER_S = 10;
/** How often under-pressure samples the event-loop delay and memory (ms). */
const SAMPLE_INTERVAL_MS = 1000;
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

/** The request refused last: an alert being sent (the contract's `alertsRoutes.send`). */
const isAlertSend = (request: FastifyRequest) =>
  request.method === alertsRoutes.send.method && request.routeOptions.url === alertsRoutes.send.url;

/**
 * Load shedding. Under overload every request but an alert being sent gets 503 with
 * Retry-After and `{detail, code: 'overloaded'}`; an alert is refused only at the clearly
 * higher OVERLOAD_ALERT_ thresholds. @fastify/under-pressure samples the event-loop delay and
 * memory; its own gate knows one level, which would refuse alerts with the rest, so the gate
 * is this hook, first of all, before any other work on the request.
 */
export default fp(
  async function overload(app: FastifyInstance, options: { config: Config; probe?: LoadProbe }) {
    await app.register(underPressure, { sampleInterval: SAMPLE_INTERVAL_MS });
    const probe: LoadProbe =
      options.probe ??
      (() => {
        const sample = app.memoryUsage();
        return { eventLoopDelayMs: sample.eventLoopDelay, heapUsedBytes: sample.heapUsed, rssBytes: sample.rssBytes };
      });
    let last: OverloadLevel = 'ok';
    app.addHook('onRequest', async (request) => {
      const load = probe();
      const level = overloadLevel(load, options.config);
      // Once per change, not per refused request: the log is no extra load.
      if (level !== last) app.log.warn({ load, level, was: last }, 'load level changed');
      last = level;
      if (level === 'ok' || (level === 'shed' && isAlertSend(request))) return;
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
