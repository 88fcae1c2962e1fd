import { useState } from 'react';
import type { Language } from '../../common/constants';
import { needsOwnerProof, resolveAlert } from './live-api';
import type { LiveStrings } from './live-strings';
import { OwnerSignIn } from './SignIn';

/**
 * "I'm safe", with a confirmation that offers the all-clear SMS; `onResolved` stops the tracking.
 * Refused for want of the owner's proof, it offers the sign-in right there, focused, and keeps
 * the confirmation: signed in, the owner confirms again where they were.
 */
export function SafeButton({
  s,
  token,
  alertId,
  resolved,
  onResolved,
  language,
}: {
  s: LiveStrings;
  token: string;
  alertId: string;
  resolved: boolean;
  onResolved: () => void;
  language: Language;
}) {
  const [step, setStep] = useState<'idle' | 'confirm' | 'sending' | 'done' | 'failed' | 'notOwner'>(
    resolved ? 'done' : 'idle',
  );
  const [notify, setNotify] = useState(true);
  const [notified, setNotified] = useState(false);

  async function confirm() {
    setStep('sending');
    const outcome = await resolveAlert(token, alertId, notify);
    if (outcome.status === 200) {
      setNotified(notify);
      setStep('done');
      onResolved();
    } else if (needsOwnerProof(outcome)) {
      // Only the owner ends an alert: the sign-in here, then "Yes, I'm safe" again.
      setStep('notOwner');
    } else setStep('failed');
  }

  if (step === 'done' || resolved) {
    return (
      <p className="big sent" role="status" data-testid="resolved">
        {s.resolved} {notified ? s.allClearSent : ''}
      </p>
    );
  }
  if (step === 'idle') {
    return (
      <button type="button" className="button danger safe" onClick={() => setStep('confirm')}>
        {s.safe}
      </button>
    );
  }
  return (
    <section className="confirm" role="dialog" aria-modal="false" aria-labelledby="safe-title">
      <h2 id="safe-title">{s.confirmTitle}</h2>
      <p className="hint">{s.confirmBody}</p>
      <label className="check">
        <input type="checkbox" checked={notify} onChange={(event) => setNotify(event.target.checked)} /> {s.notify}
      </label>
      <div className="actions">
        <button type="button" className="button" disabled={step === 'sending'} onClick={() => void confirm()}>
          {step === 'sending' ? s.resolving : s.confirm}
        </button>
        <button
          type="button"
          className="button secondary"
          disabled={step === 'sending'}
          onClick={() => setStep('idle')}
        >
          {s.back}
        </button>
      </div>
      {step === 'failed' && <p role="alert">{s.resolveFailed}</p>}
      {step === 'notOwner' && (
        <>
          <p role="alert" data-testid="resolve-needs-owner">
            {s.resolveNeedsOwner}
          </p>
          <OwnerSignIn language={language} here onSignedIn={() => setStep('confirm')} />
        </>
      )}
    </section>
  );
}
