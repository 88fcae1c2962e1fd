import { type FormEvent, useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DAILY_REMINDER_HASH } from '../../../common/push';
import { type RemindersHere, remindersHere } from '../../alert/reminders-here';
import { failureOf } from '../../api/client';
import { type DailySettings, type DailyView, fetchDaily, saveDaily } from '../../api/daily';
import type { Contact } from '../../api/types';
import { Field } from '../../components/Field';
import { dateTime } from '../../lib/time';
import { useStore } from '../../store';

const MINUTES_A_DAY = 1440;

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

/** What will happen, in plain words: "Every day before 10:00. If you haven't checked in by 11:00, Ana and Rui get an SMS." */
export function DailySentence({ settings, names }: { settings: DailySettings; names: string[] }) {
  const { t } = useTranslation();
  const until = clockPlus(settings.time, settings.grace_minutes);
  const when =
    settings.every_days === 1
      ? t('daily.everyDay', { time: settings.time })
      : t('daily.everyNDays', { count: settings.every_days, time: settings.time });
  const alarm =
    names.length > 0
      ? t('daily.alarm', { until, names: namesOf(names, t('daily.and')) })
      : t('daily.alarmNobody', { until });
  return (
    <p className="daily-sentence" data-testid="daily-sentence">
      {when} {alarm}
    </p>
  );
}

/** The words for what this browser gets (Setup asks nothing, so never `full` nor `failed`). */
const PUSH_TEXT: Record<RemindersHere, string> = {
  on: 'on',
  off: 'off',
  denied: 'denied',
  unsupported: 'unsupported',
  'home-screen': 'homeScreen',
  'no-key': 'noKey',
  full: 'off',
  failed: 'off',
};

/**
 * Whether this phone gets the daily reminder as a notification (the e-mail always goes), and if
 * not, how: the emergency page on this phone asks for it ("Remind me here", or the first "I'm OK
 * today"), as it holds the device key the server registers it under.
 */
export function DailyReminderHere() {
  const { t } = useTranslation();
  const token = useStore((state) => state.user?.token);
  const [here, setHere] = useState<RemindersHere | null>(null);

  useEffect(() => {
    let live = true;
    void remindersHere().then((found) => live && setHere(found));
    return () => {
      live = false;
    };
  }, []);

  if (!here) return null;
  return (
    <p className="note" data-testid="daily-push-here">
      {t(`daily.push.${PUSH_TEXT[here]}`)}
      {here === 'off' && token && (
        <>
          {' '}
          <a href={`/public/${token}/${DAILY_REMINDER_HASH}`}>{t('daily.push.open')}</a>
        </>
      )}
    </p>
  );
}

const DEFAULTS: DailySettings = { enabled: false, time: '10:00', every_days: 1, grace_minutes: 60, paused_until: null };

const settingsOf = (view: DailyView): DailySettings => ({
  enabled: view.enabled,
  time: view.time,
  every_days: view.every_days,
  grace_minutes: view.grace_minutes,
  paused_until: view.paused_until,
});

/**
 * Setup's daily check-in: on or off, the time of day, every how many days, the grace before the
 * alert and a pause until a date, with the sentence of what will happen and the next due time.
 */
export function DailyCheckin({ contacts, limit }: { contacts: Contact[]; limit?: number | undefined }) {
  const { t, i18n } = useTranslation();
  const pushToast = useStore((state) => state.pushToast);
  const [view, setView] = useState<DailyView | null>(null);
  const [settings, setSettings] = useState<DailySettings>(DEFAULTS);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const everyId = useId();
  const enabledId = useId();

  useEffect(() => {
    let live = true;
    fetchDaily()
      .then((found) => {
        if (!live) return;
        setView(found);
        setSettings(settingsOf(found));
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  async function save(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const saved = await saveDaily(settings);
      setView(saved);
      setSettings(settingsOf(saved));
      pushToast('success', { key: 'daily.saved' });
    } catch (failure) {
      const { status } = await failureOf(failure);
      setProblem(status === 402 ? t('daily.premium') : t('daily.failed'));
    } finally {
      setBusy(false);
    }
  }

  const set = (fields: Partial<DailySettings>) => setSettings((current) => ({ ...current, ...fields }));
  const names = contacts.slice(0, limit ?? contacts.length).map((contact) => contact.name);

  return (
    <section className="panel daily" aria-labelledby="daily-title">
      <h2 id="daily-title">{t('daily.title')}</h2>
      <p>{t('daily.intro')}</p>
      <form onSubmit={save} noValidate>
        <div className="field checkbox">
          <input
            id={enabledId}
            type="checkbox"
            checked={settings.enabled}
            onChange={(event) => set({ enabled: event.target.checked })}
          />
          <label htmlFor={enabledId}>{t('daily.enabled')}</label>
        </div>
        <Field
          label={t('daily.time')}
          type="time"
          required
          value={settings.time}
          onChange={(event) => set({ time: event.target.value })}
        />
        <div className="field">
          <label htmlFor={everyId}>{t('daily.everyDays')}</label>
          <select
            id={everyId}
            value={settings.every_days}
            onChange={(event) => set({ every_days: Number(event.target.value) })}
          >
            {[1, 2, 3, 4, 5, 6, 7].map((days) => (
              <option key={days} value={days}>
                {days}
              </option>
            ))}
          </select>
        </div>
        <Field
          label={t('daily.grace')}
          type="number"
          min={1}
          max={MINUTES_A_DAY}
          value={settings.grace_minutes}
          onChange={(event) => set({ grace_minutes: Number(event.target.value) })}
        />
        <Field
          label={t('daily.pausedUntil')}
          type="date"
          value={settings.paused_until ?? ''}
          onChange={(event) => set({ paused_until: event.target.value || null })}
        />
        <DailySentence settings={settings} names={names} />
        {problem && (
          <p className="form-error" role="alert">
            {problem}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="button primary" disabled={busy || !/^\d\d:\d\d$/.test(settings.time)}>
            {t('daily.save')}
          </button>
        </div>
      </form>
      {view?.enabled && (
        <p className="note" role="status" data-testid="daily-status">
          {t(`daily.status.${view.status}`)}
          {view.status === 'paused' && view.paused_until ? ` · ${t('daily.paused', { date: view.paused_until })}` : ''}
          {view.next_due_at && view.status !== 'paused'
            ? ` · ${t('daily.nextDue', { when: dateTime(view.next_due_at, i18n.language) })}`
            : ''}
        </p>
      )}
      {view?.enabled && <DailyReminderHere />}
    </section>
  );
}
