/** How far an alert's escalation got, as its API answer shows it (common/api/escalation.ts). */
import type { EscalationView } from '../../../common/api/escalation.js';
import type { Alert, EscalationCall } from '../../db/schema.js';
import { iso } from '../../lib/dates.js';

/** Calls that rang out: every call in one of these is over as far as the sender is concerned. */
const OVER = new Set(['answered', 'acknowledged', 'no_answer', 'busy', 'failed']);

/** `calls`: this alert's own. */
export function escalationView(alert: Alert, calls: EscalationCall[]): EscalationView {
  if (alert.escalation_at === null) return { status: 'off', at: null, calls: [] };
  const status =
    alert.escalation_status === null
      ? 'waiting'
      : // No call at all (every contact withheld, or already phoned for a link-only alert within the hour) is done too.
        alert.escalation_status === 'calling' && calls.every((call) => OVER.has(call.status))
        ? 'done'
        : alert.escalation_status;
  return {
    status,
    at: iso(alert.escalation_at),
    calls: calls.map((call) => ({ contact_name: call.contact_name, status: call.status })),
  };
}
