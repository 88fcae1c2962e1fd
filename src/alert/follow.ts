import { STATUS_POLL_FOR_MS, STATUS_POLL_MS } from '../../common/constants';
import { type AlertResult, fetchAlert } from './api';

const FINAL = new Set(['delivered', 'failed']);

/** True once every contact's delivery is delivered or failed. */
export const settled = (alert: AlertResult) => alert.deliveries.every((d) => FINAL.has(d.status));

/**
 * Asks for an alert's statuses every STATUS_POLL_MS until each delivery is delivered or failed,
 * or `forMs` has passed; each answer goes to `onAnswer`, which stops the polling by returning false.
 */
export async function followDeliveries(
  token: string,
  alert: AlertResult,
  onAnswer: (alert: AlertResult) => boolean | undefined,
  forMs = STATUS_POLL_FOR_MS,
): Promise<void> {
  const until = Date.now() + forMs;
  let current = alert;
  while (Date.now() < until && !settled(current)) {
    await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
    const answer = await fetchAlert(token, current.id);
    if (!answer.ok) continue;
    current = answer.value;
    if (onAnswer(current) === false) return;
  }
}
