import { useTranslation } from 'react-i18next';
import { onOwnersClock } from '../../../common/daily-schedule';
import { alertsAt, calendarText, clockText, okToday } from '../../../common/daily-view';
import type { DailyView } from '../../api/daily';
import { intlLocale } from '../../lib/locale';
import { useStore } from '../../store';

const DUE_FORMAT: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };

/**
 * A daily check-in's status as the app says it, on the owner's clock (their `time_zone`): the
 * status with the next due time, or the pause and its end once; while due, when the contacts are
 * alerted; and, once the owner checked in today, that it counted and when. For the home page's
 * card and Setup.
 */
export function DailyStatus({ view, testId }: { view: DailyView; testId: string }) {
  const { t, i18n } = useTranslation();
  const timeZone = useStore((state) => state.user?.time_zone);
  const locale = intlLocale(i18n.language);
  const alerted = alertsAt(view);
  const done = okToday(view, Date.now(), timeZone);
  const status =
    view.status === 'paused' && view.paused_until
      ? t('daily.paused', { date: calendarText(view.paused_until, locale) })
      : view.next_due_at && view.status !== 'paused'
        ? `${t(`daily.status.${view.status}`)} · ${t('daily.nextDue', { when: onOwnersClock(view.next_due_at, locale, timeZone, DUE_FORMAT) })}`
        : t(`daily.status.${view.status}`);
  return (
    <>
      <p className="note" role="status" data-testid={testId}>
        {status}
      </p>
      {alerted !== null && (
        <p className="daily-due" data-testid="daily-due">
          {t('daily.alertsAt', { time: clockText(alerted, locale, timeZone) })}
        </p>
      )}
      {done !== null && view.status !== 'due' && (
        <p className="daily-done" data-testid="daily-done">
          {t('daily.doneAt', { time: clockText(done, locale, timeZone) })}
        </p>
      )}
    </>
  );
}
