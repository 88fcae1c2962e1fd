import { useTranslation } from 'react-i18next';
import { localDate } from '../../../common/daily-schedule';
import { calendarText } from '../../../common/daily-view';
import type { DailySettings } from '../../api/daily';
import { intlLocale } from '../../lib/locale';

const MINUTES_A_DAY = 1440;
/** The grace the server takes (common/api/daily.ts): whole minutes, a minute to a day. */
export const GRACE_BOUNDS = { min: 1, max: MINUTES_A_DAY } as const;

/** Whether a grace is one the server takes. */
export const graceValid = (minutes: number) =>
  Number.isInteger(minutes) && minutes >= GRACE_BOUNDS.min && minutes <= GRACE_BOUNDS.max;

/** "HH:MM" moved on by `minutes`, on the same clock (the sentence's "by 11:00"). */
export function clockPlus(time: string, minutes: number): string {
  const [hours = 0, mins = 0] = time.split(':').map(Number);
  const total = (((hours * 60 + mins + minutes) % MINUTES_A_DAY) + MINUTES_A_DAY) % MINUTES_A_DAY;
  return `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
}

/** The names of the contacts alerted, "Ana and Rui", "Ana, Rui and Eva". */
function namesOf(names: string[], and: string): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')}${and}${names.at(-1)}`;
}

interface SentenceProps {
  settings: DailySettings;
  /** The contacts alerted, by name; null when they could not be loaded (unknown, not none). */
  names: string[] | null;
  /** The owner's time zone: a pause that ended on their clock is not mentioned. */
  timeZone?: string | null | undefined;
}

/**
 * What will happen, in plain words: "Every day before 10:00. If you haven't checked in by 11:00,
 * Ana and Rui get an SMS.", with the pause when one is set. While the check-in is off it says so
 * first, so the sentence reads as what turning it on would do, not as a promise; a grace out of
 * bounds gives no alert time at all rather than a wrong one.
 */
export function DailySentence({ settings, names, timeZone }: SentenceProps) {
  const { t, i18n } = useTranslation();
  const when =
    settings.every_days === 1
      ? t('daily.everyDay', { time: settings.time })
      : t('daily.everyNDays', { count: settings.every_days, time: settings.time });
  const until = clockPlus(settings.time, settings.grace_minutes);
  const alarm = !graceValid(settings.grace_minutes)
    ? ''
    : names === null
      ? t('daily.alarmUnknown', { until })
      : names.length > 0
        ? t('daily.alarm', { until, names: namesOf(names, t('daily.and')), count: names.length })
        : t('daily.alarmNobody', { until });
  const paused =
    settings.paused_until && settings.paused_until > localDate(Date.now(), timeZone)
      ? t('daily.pausedSentence', { date: calendarText(settings.paused_until, intlLocale(i18n.language)) })
      : '';
  const sentence = [when, alarm, paused].filter(Boolean).join(' ');
  return (
    <p className="daily-sentence" data-testid="daily-sentence">
      {settings.enabled ? sentence : t('daily.offSentence', { sentence })}
    </p>
  );
}
