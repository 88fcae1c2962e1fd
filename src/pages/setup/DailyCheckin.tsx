import { type FormEvent, useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DAILY_REMINDER_HASH } from '../../../common/push';
import { type RemindersHere, remindersHere } from '../../alert/reminders-here';
import { failureOf } from '../../api/client';
import { type DailySettings, type DailyView, fetchDaily, saveDaily } from '../../api/daily';
import type { Contact } from '../../api/types';
import { Field } from '../../components/Field';
import { useStore } from '../../store';
import { DailyStatus } from '../home/DailyStatus';
import { DailySentence, GRACE_BOUNDS, graceValid } from './DailySentence';

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
export function DailyCheckin({
  contacts,
  limit,
  contactsKnown = true,
}: {
  contacts: Contact[];
  limit?: number | undefined;
  /** False when the contacts could not be loaded: the sentence then names none, and claims none are missing. */
  contactsKnown?: boolean;
}) {
  const { t } = useTranslation();
  const pushToast = useStore((state) => state.pushToast);
  const timeZone = useStore((state) => state.user?.time_zone);
  const [view, setView] = useState<DailyView | null>(null);
  const [settings, setSettings] = useState<DailySettings>(DEFAULTS);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [graceProblem, setGraceProblem] = useState(false);
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
    setProblem(null);
    setGraceProblem(!graceValid(settings.grace_minutes));
    if (!graceValid(settings.grace_minutes)) return;
    setBusy(true);
    try {
      const saved = await saveDaily(settings);
      setView(saved);
      setSettings(settingsOf(saved));
      pushToast('success', { key: 'daily.saved' });
    } catch (failure) {
      const { status, data } = await failureOf(failure);
      // The server's bounds, said by the field they are about rather than as a generic failure.
      if (status === 400 && data && typeof data === 'object' && 'grace_minutes' in data) setGraceProblem(true);
      else setProblem(status === 402 ? t('daily.premium') : t('daily.failed'));
    } finally {
      setBusy(false);
    }
  }

  const set = (fields: Partial<DailySettings>) => setSettings((current) => ({ ...current, ...fields }));
  const names = contactsKnown ? contacts.slice(0, limit ?? contacts.length).map((contact) => contact.name) : null;

  return (
    <section className="panel daily" aria-labelledby="daily-title">
      <h2 id="daily-title">{t('daily.title')}</h2>
      <p>{t('daily.intro')}</p>
      <form onSubmit={save} noValidate>
        <div className="check">
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
          min={GRACE_BOUNDS.min}
          max={GRACE_BOUNDS.max}
          step={1}
          hint={t('daily.graceHint')}
          error={graceProblem ? t('daily.graceBounds') : null}
          value={Number.isNaN(settings.grace_minutes) ? '' : settings.grace_minutes}
          onChange={(event) => {
            setGraceProblem(false);
            set({ grace_minutes: event.target.value === '' ? Number.NaN : Number(event.target.value) });
          }}
        />
        <Field
          label={t('daily.pausedUntil')}
          type="date"
          value={settings.paused_until ?? ''}
          onChange={(event) => set({ paused_until: event.target.value || null })}
        />
        <DailySentence settings={settings} names={names} timeZone={timeZone} />
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
      {view?.enabled && <DailyStatus view={view} testId="daily-status" />}
      {view?.enabled && <DailyReminderHere />}
    </section>
  );
}
