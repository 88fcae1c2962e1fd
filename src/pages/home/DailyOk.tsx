import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { okOffered } from '../../../common/daily-view';
import { type DailyView, dailyOkNow, fetchDaily } from '../../api/daily';
import { useStore } from '../../store';
import { DailyStatus } from './DailyStatus';

/**
 * The home page's daily check-in card, when one is set: its status, the next due time, when the
 * contacts are alerted while due, and "I'm OK today" offered by the rule the emergency page
 * follows (the session is the owner's proof). Once tapped, the card says it counted.
 */
export function DailyOk({ token }: { token: string }) {
  const { t } = useTranslation();
  const pushToast = useStore((state) => state.pushToast);
  const [view, setView] = useState<DailyView | null>(null);
  const [busy, setBusy] = useState(false);

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
      setView(await dailyOkNow(token));
      pushToast('success', { key: 'daily.okDone' });
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
      {okOffered(view, Date.now()) && (
        <button type="button" className="button calm" disabled={busy} onClick={() => void ok()}>
          {t('daily.ok')}
        </button>
      )}
    </section>
  );
}
