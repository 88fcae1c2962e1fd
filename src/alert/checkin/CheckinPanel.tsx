import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { Language } from '../../../common/constants';
import type { PageData } from '../api';
import type { PositionWatch } from '../geo';
import { hhmm, liveStringsFor } from '../live-strings';
import { liveUrlOf } from '../parts';
import { SafeButton } from '../SafeButton';
import { OwnerSignIn } from '../SignIn';
import type { CheckinView } from './api';
import { CHECKIN_MAX_MINUTES, CHECKIN_NOTE_MAX, Checkin, isOpen } from './checkin';
import { type CheckinStrings, checkinStringsFor, clock } from './strings';

const CHOICES = [15, 30, 60] as const;

/** Re-renders every second while `active`, for the time left. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

/** Choosing and starting a check-in: 15, 30, 60 min or a custom time, and an optional note. */
function StartForm({ s, checkin, onClose }: { s: CheckinStrings; checkin: Checkin; onClose: () => void }) {
  const [minutes, setMinutes] = useState<number | 'custom'>(15);
  const [custom, setCustom] = useState('');
  const [note, setNote] = useState('');
  const { busy } = useSyncExternalStore(checkin.subscribe, checkin.getState);
  const chosen = minutes === 'custom' ? Number(custom) : minutes;
  const valid = Number.isInteger(chosen) && chosen >= 1 && chosen <= CHECKIN_MAX_MINUTES;
  return (
    <form
      className="checkin-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (valid) void checkin.start(chosen, note);
      }}
    >
      <p className="hint">{s.intro}</p>
      <fieldset className="choices">
        {CHOICES.map((m) => (
          <label key={m} className="check">
            <input type="radio" name="checkin-minutes" checked={minutes === m} onChange={() => setMinutes(m)} />{' '}
            {s.minutes(m)}
          </label>
        ))}
        <label className="check">
          <input
            type="radio"
            name="checkin-minutes"
            checked={minutes === 'custom'}
            onChange={() => setMinutes('custom')}
          />{' '}
          {s.custom}
        </label>
        {minutes === 'custom' && (
          <input
            type="number"
            inputMode="numeric"
            min={1}
            max={CHECKIN_MAX_MINUTES}
            aria-label={s.custom}
            value={custom}
            onInput={(event) => setCustom((event.target as HTMLInputElement).value)}
          />
        )}
      </fieldset>
      <label>
        {s.note}
        <input
          type="text"
          maxLength={CHECKIN_NOTE_MAX}
          value={note}
          onInput={(event) => setNote((event.target as HTMLInputElement).value)}
        />
      </label>
      <div className="actions">
        <button type="submit" className="button" disabled={busy || !valid}>
          {busy ? s.starting : s.start}
        </button>
        <button type="button" className="button secondary" onClick={onClose}>
          {s.close}
        </button>
      </div>
    </form>
  );
}

/**
 * Where the owner signs in on this phone, asked when a check-in was refused for want of the
 * owner's proof: the page's own sign-in ("Is this your phone?"), opened and brought into view,
 * or the same form here when the page does not show it (this phone has a key, refused).
 */
function ProofSignIn({ s, language }: { s: CheckinStrings; language: Language }) {
  const [here, setHere] = useState(false);
  if (here) return <OwnerSignIn language={language} offer />;
  const open = () => {
    const below = document.querySelector<HTMLDetailsElement>('details.owner-sign-in');
    if (!below) return setHere(true);
    below.open = true;
    below.scrollIntoView({ block: 'center' });
    below.querySelector('input')?.focus();
  };
  return (
    <button type="button" className="button secondary" onClick={open}>
      {s.signIn}
    </button>
  );
}

/** A running or overdue check-in: the time left, "I'm safe" and "+15 min" (with the PIN pad when one is set). */
function Running({
  s,
  checkin,
  view,
  pin,
  language,
}: {
  s: CheckinStrings;
  checkin: Checkin;
  view: CheckinView;
  pin: boolean;
  language: Language;
}) {
  const { busy, waiting } = useSyncExternalStore(checkin.subscribe, checkin.getState);
  const [digits, setDigits] = useState('');
  const now = useNow(true);
  const left = new Date(view.due_at).getTime() - now;
  const overdue = view.status === 'overdue' || left <= 0;
  return (
    <div className="checkin-running">
      {overdue ? (
        <p className="big queued" role="alert" data-testid="checkin-overdue">
          {s.overdue(hhmm(view.fires_at, language))}
        </p>
      ) : (
        <p className="big" data-testid="checkin-left">
          {s.left(clock(left))} <span className="hint">{s.dueAt(hhmm(view.due_at, language))}</span>
        </p>
      )}
      {view.note && <p className="hint">{view.note}</p>}
      {waiting ? (
        <p className="big queued" role="status" data-testid="checkin-waiting">
          {s.waiting}
        </p>
      ) : (
        <form
          className="actions"
          onSubmit={(event) => {
            event.preventDefault();
            void checkin.done(pin ? digits : undefined);
          }}
        >
          {pin && (
            <label>
              {s.pin}
              <input
                type="password"
                inputMode="numeric"
                pattern="[0-9]*"
                autoComplete="off"
                maxLength={16}
                value={digits}
                onInput={(event) => setDigits((event.target as HTMLInputElement).value.replace(/\D/g, ''))}
              />
            </label>
          )}
          <button type="submit" className="button safe" disabled={busy || (pin && digits.length === 0)}>
            {s.safe}
          </button>
          <button
            type="button"
            className="button secondary"
            disabled={busy || (pin && digits.length === 0)}
            onClick={() => void checkin.extend(pin ? digits : undefined)}
          >
            {s.extend}
          </button>
        </form>
      )}
    </div>
  );
}

/** The check-in beside the alert button, never in its way: the alert stays the first thing on the page. */
export function CheckinPanel({
  token,
  geo,
  page,
  language,
}: {
  token: string;
  geo: PositionWatch;
  page: PageData | null;
  language: Language;
}) {
  const pageRef = useRef(page);
  pageRef.current = page;
  const checkin = useMemo(() => new Checkin(token, geo, () => pageRef.current), [token, geo]);
  useEffect(() => checkin.open(), [checkin]);
  const state = useSyncExternalStore(checkin.subscribe, checkin.getState);
  const [choosing, setChoosing] = useState(false);
  const s = checkinStringsFor(language);
  const view = state.checkin;
  const active = isOpen(view);

  return (
    <section className="checkin" aria-labelledby="checkin-title">
      <h2 id="checkin-title">{s.heading}</h2>
      {active && view && (
        <Running s={s} checkin={checkin} view={view} pin={page?.checkin_pin === true} language={language} />
      )}
      {view?.status === 'done' && (
        <p className="big sent" role="status" data-testid="checkin-done">
          {s.done}
        </p>
      )}
      {view?.status === 'fired' && (
        <div role="alert" data-testid="checkin-fired">
          <p className="big">{s.fired}</p>
          {view.alert_public_id && <a href={liveUrlOf(view.alert_public_id)}>{s.livePage}</a>}
          {/* Without the owner's proof the answer names no alert: the link alone never follows the owner. */}
          {!view.alert_id && <p className="hint">{s.firedSignIn}</p>}
          {view.alert_id && (
            <>
              <p className="hint">{s.allClear}</p>
              <SafeButton
                s={liveStringsFor(language)}
                token={token}
                alertId={view.alert_id}
                resolved={false}
                onResolved={() => undefined}
                language={language}
              />
            </>
          )}
        </div>
      )}
      {!active &&
        state.loaded &&
        (choosing ? (
          <StartForm s={s} checkin={checkin} onClose={() => setChoosing(false)} />
        ) : (
          <button type="button" className="button secondary" onClick={() => setChoosing(true)}>
            {s.open}
          </button>
        ))}
      {state.error && (
        <p role="alert" data-testid="checkin-error">
          {s.errors[state.error]}
        </p>
      )}
      {state.error === 'proof' && <ProofSignIn s={s} language={language} />}
      {active && state.homeScreenHint && <p className="hint">{s.homeScreen}</p>}
    </section>
  );
}
