import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { OwnerAlert } from '../../../common/api/alerts';
import { fetchAlertHistory } from '../../api/endpoints';
import { dateTime } from '../../lib/time';

/** How many of the server's last alerts the home page lists. */
const SHOWN = 10;

/**
 * One alert: when, why (pressed, a missed check-in or the duress PIN), real or test, and its SMS.
 * Its values go in data attributes, never in its class: a reason such as `button` would take the
 * app's class of that name.
 */
function AlertRow({ alert }: { alert: OwnerAlert }) {
  const { t, i18n } = useTranslation();
  return (
    <li className="alert-row" data-reason={alert.reason} data-mode={alert.mode}>
      <time dateTime={alert.created_at}>{dateTime(alert.created_at, i18n.language)}</time>{' '}
      <span className="reason">
        <span className="visually-hidden">{t('checkins.reasonLabel')}: </span>
        {t(`checkins.reason.${alert.reason}`)}
      </span>{' '}
      <span className="mode">{t(`checkins.mode.${alert.mode}`)}</span>{' '}
      <span className="count">{t('checkins.deliveries', { count: alert.deliveries.length })}</span>
    </li>
  );
}

/** The owner's last alerts, newest first, as the server lists them. */
export function AlertHistory() {
  const { t } = useTranslation();
  const [alerts, setAlerts] = useState<OwnerAlert[] | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let live = true;
    fetchAlertHistory()
      .then((list) => live && setAlerts(list))
      .catch((error: unknown) => {
        console.warn('Loading the alert history failed', error);
        if (live) setFailed(true);
      });
    return () => {
      live = false;
    };
  }, []);

  return (
    <section className="panel alert-history" aria-labelledby="alerts-title">
      <h2 id="alerts-title">{t('checkins.historyTitle')}</h2>
      {failed && <p className="form-error">{t('checkins.historyFailed')}</p>}
      {!failed && alerts === null && <p role="status">{t('common.loading')}</p>}
      {alerts?.length === 0 && <p>{t('checkins.historyEmpty')}</p>}
      {alerts && alerts.length > 0 && (
        <ul className="alert-list" aria-labelledby="alerts-title">
          {alerts.slice(0, SHOWN).map((alert) => (
            <AlertRow key={alert.id} alert={alert} />
          ))}
        </ul>
      )}
    </section>
  );
}
