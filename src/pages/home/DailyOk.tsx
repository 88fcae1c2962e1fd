import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { okOffered } from '../../../common/daily-view';
import { type DailyView, dailyOkNow, fetchDaily } from '../../api/daily';
import { useStore } from '../../store';
import { DailyStatus } from './DailyStatus';

/**
 * The home page's daily check-in card, when one is set: its status, the next due time, when the
 * contacts are alerted while due, and "I'm OK today" offered by the rule the emergency page
 * follows (the session is the owner's proof). On a missed day it ends the alert too, asking, as
 * the emergency page does, whether to tell the contacts; `onAlarmEnded` then has the open alerts
 * read again. Once tapped, the card says it counted.
 */
export function DailyOk({ token, onAlarmEnded }: { token: string; onAlarmEnded?: () => void }) {
  const { t } = useTranslation();
  const pushToast = useStore((state) => state.pushToast);
  const [view, setView] = useState<DailyView | null>(null);
  const [busy, setBusy] = useState(false);
  const [notify, setNotify] = useState(true);

  useEffect(() => {
    let live = true;
    fetchDaily()
      .then((found) => live && setView(found))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  if (!view?.enabled) return null;

  async function ok() {
    setBusy(true);
    try {
      const missed = view?.status === 'missed';
      setView(await dailyOkNow(token, missed ? notify : undefined));
      pushToast('success', { key: 'daily.okDone' });
      if (missed) onAlarmEnded?.();
    } catch {
      pushToast('error', { key: 'daily.okFailed' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel daily-ok" aria-labelledby="daily-ok-title">
      <h2 id="daily-ok-title">{t('daily.title')}</h2>
      <DailyStatus view={view} testId="daily-ok-status" />
      {okOffered(view, Date.now()) && view.status === 'missed' && (
        <label className="check">
          <input type="checkbox" checked={notify} onChange={(event) => setNotify(event.target.checked)} />{' '}
          {t('daily.okNotify')}
        </label>
      )}
      {okOffered(view, Date.now()) && (
        <button type="button" className="button calm" disabled={busy} onClick={() => void ok()}>
          {t('daily.ok')}
        </button>
      )}
    </section>
  );
}
