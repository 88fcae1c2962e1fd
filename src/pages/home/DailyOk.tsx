import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { onOwnersClock } from '../../../common/daily-schedule';
import { type DailyView, dailyOkNow, fetchDaily } from '../../api/daily';
import { intlLocale } from '../../lib/locale';
import { useStore } from '../../store';

const DUE_FORMAT: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };

/**
 * The home page's daily check-in card, when one is set: its status, the next due time, and
 * "I'm OK today" (the session is the owner's proof).
 */
export function DailyOk({ token }: { token: string }) {
  const { t, i18n } = useTranslation();
  const pushToast = useStore((state) => state.pushToast);
  const timeZone = useStore((state) => state.user?.time_zone);
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
      <p role="status" data-testid="daily-ok-status">
        {t(`daily.status.${view.status}`)}
        {view.next_due_at && view.status !== 'paused'
          ? ` · ${t('daily.nextDue', { when: onOwnersClock(view.next_due_at, intlLocale(i18n.language), timeZone, DUE_FORMAT) })}`
          : ''}
        {view.status === 'paused' && view.paused_until ? ` · ${t('daily.paused', { date: view.paused_until })}` : ''}
      </p>
      {view.status !== 'paused' && (
        <button type="button" className="button primary" disabled={busy} onClick={() => void ok()}>
          {t('daily.ok')}
        </button>
      )}
    </section>
  );
}
