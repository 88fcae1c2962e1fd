import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { OpenAlert } from '../../../common/api/open-alerts';
import { liveRoutes, openAlertsRoutes } from '../../../common/api/routes';
import { call } from '../../api/client';
import { dateTime, timeOfDay as timeOf } from '../../lib/time';

/** "I'm safe" for one alert, with the all-clear offered, as the emergency page does after a press. */
function EndAlert({ token, alert, onEnded }: { token: string; alert: OpenAlert; onEnded: () => void }) {
  const { t } = useTranslation();
  const [step, setStep] = useState<'idle' | 'confirm' | 'sending' | 'done' | 'failed'>('idle');
  const [notify, setNotify] = useState(true);
  const [notified, setNotified] = useState(false);

  async function confirm() {
    setStep('sending');
    try {
      await call(liveRoutes.resolve, { token, id: alert.id }, { json: { notify } }).json();
      setNotified(notify);
      setStep('done');
      onEnded();
    } catch {
      setStep('failed');
    }
  }

  if (step === 'done') {
    return (
      <p className="success" role="status" data-testid="home-alert-resolved">
        {t('alarm.resolved')} {notified ? t('alarm.allClearSent') : ''}
      </p>
    );
  }
  if (step === 'idle') {
    return (
      <button type="button" className="button danger" onClick={() => setStep('confirm')}>
        {t('alarm.safe')}
      </button>
    );
  }
  const titleId = `end-${alert.id}`;
  return (
    <section className="confirm" aria-labelledby={titleId}>
      <h3 id={titleId}>{t('alarm.confirmTitle')}</h3>
      <p>{t('alarm.confirmBody')}</p>
      <label className="check">
        <input type="checkbox" checked={notify} onChange={(event) => setNotify(event.target.checked)} />{' '}
        {t('alarm.notify')}
      </label>
      <div className="actions">
        <button type="button" className="button primary" disabled={step === 'sending'} onClick={() => void confirm()}>
          {step === 'sending' ? t('alarm.resolving') : t('alarm.confirm')}
        </button>
        <button
          type="button"
          className="button secondary"
          disabled={step === 'sending'}
          onClick={() => setStep('idle')}
        >
          {t('alarm.back')}
        </button>
      </div>
      {step === 'failed' && (
        <p className="form-error" role="alert">
          {t('alarm.failed')}
        </p>
      )}
    </section>
  );
}

/**
 * The owner's open alerts on the home page (the session is the owner's proof): what raised each,
 * when, who is on the way, and "I'm safe" with the all-clear. Never a duress alert (the server
 * lists none). Where the owner's "I'm OK" e-mail button leads.
 */
export function OpenAlerts({ token }: { token: string }) {
  const { t, i18n } = useTranslation();
  const [alerts, setAlerts] = useState<OpenAlert[]>([]);

  useEffect(() => {
    let live = true;
    call(openAlertsRoutes.list, { token })
      .json<OpenAlert[]>()
      .then((found) => live && setAlerts(found))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [token]);

  if (!alerts.length) return null;
  const language = i18n.language;
  return (
    <section className="panel open-alerts" aria-labelledby="open-alerts-title" data-testid="open-alerts">
      <h2 id="open-alerts-title">{t('alarm.title')}</h2>
      {alerts.map((alert) => {
        const why = alert.reason === 'missed_daily' || alert.reason === 'missed_checkin' ? alert.reason : 'button';
        return (
          <article key={alert.id} className="open-alert" data-reason={alert.reason}>
            <p className="why" data-testid="open-alert-why">
              {t(`alarm.why.${why}`, { time: timeOf(alert.created_at, language) })}
            </p>
            {alert.since && <p>{t('alarm.since', { when: dateTime(alert.since, language) })}</p>}
            <h3>{t('alarm.onTheWay')}</h3>
            {alert.responders.length === 0 ? (
              <p>{t('alarm.nobody')}</p>
            ) : (
              <ul className="responders">
                {alert.responders.map((r, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: responders keep the server's order and names repeat.
                  <li key={i}>
                    {t('alarm.responder', { name: r.name || t('alarm.someone'), time: timeOf(r.created_at, language) })}
                    {r.channel && ` · ${t(`alarm.via.${r.channel}`)}`}
                  </li>
                ))}
              </ul>
            )}
            <EndAlert token={token} alert={alert} onEnded={() => undefined} />
          </article>
        );
      })}
    </section>
  );
}
