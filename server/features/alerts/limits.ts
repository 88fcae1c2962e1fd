import { Counter, type CounterHost } from '../../plugins/security.js';
import { tokenHash } from '../owner/index.js';

/**
 * A limit per token that a service charges only when it applies (a new test alert, not a
 * replay or a real alert): each call counts one, and throws the 429 once over `max` per
 * `timeWindow` ms. Lifted with the other limits.
 */
export function perTokenCharge(app: CounterHost, name: string, max: number, timeWindow: number) {
  const counter = new Counter(app, name, max, timeWindow, tokenHash);
  return (token: string) => counter.take(token);
}
