import type { EscalationView } from '../../common/api/escalation';
import type { Language } from '../../common/constants';
import { hhmm, type LiveStrings } from './live-strings';

/**
 * When the contacts will be phoned if nobody answers, then each call's state; nothing when
 * escalation is off or was cancelled by an answer or the all-clear.
 */
export function EscalationLine({
  s,
  escalation,
  language,
}: {
  s: LiveStrings;
  escalation: EscalationView | undefined;
  language: Language;
}) {
  if (!escalation || escalation.status === 'off' || escalation.status === 'cancelled') return null;
  if (escalation.status === 'waiting') {
    return (
      <p className="hint" data-testid="escalation" data-status="waiting">
        {escalation.at ? s.escalationWaiting(hhmm(escalation.at, language)) : ''}
      </p>
    );
  }
  return (
    <section data-testid="escalation" data-status={escalation.status} aria-live="polite">
      <p className="hint">{escalation.status === 'done' ? s.escalationDone : s.escalationCalling}</p>
      <ul className="contacts">
        {escalation.calls.map((call, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: calls keep the server's order and names may repeat.
          <li key={i} data-call={call.status}>
            {call.contact_name}: {s.call[call.status]}
          </li>
        ))}
      </ul>
    </section>
  );
}
