import { type FormEvent, useEffect, useState } from 'react';
import { checkResponderName, RESPONDER_NAME_INPUT_MAX, type ResponderNameProblem } from '../../common/responder-name';
import { mapsUrl } from '../../common/sms-text';
import { type Followed, followLive, type LivePosition, sendAck } from './api';
import { ago, clock, dayClock, type LiveStrings, liveLanguage, liveStrings } from './i18n';
import { LiveMap } from './LiveMap';

const ackKey = (publicId: string) => `alerta.live.ack.${publicId}`;

/** Re-renders every few seconds so "how long ago" stays true. */
function useNow(everyMs = 5000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * The live page (`/a/{public_id}`): who needs help, where, who is on the way, and the state.
 * `contactKey`: the `c` of a contact's own link from the SMS, sent with "I'm on my way".
 */
export function LivePage({ publicId, contactKey = null }: { publicId: string; contactKey?: string | null }) {
  const [followed, setFollowed] = useState<Followed | null>(null);
  const now = useNow();
  useEffect(() => followLive(publicId, setFollowed, contactKey ? { contactKey } : {}), [publicId, contactKey]);

  const view = followed?.kind === 'view' ? followed.view : null;
  const language = liveLanguage(view && view.state !== 'ended' ? view.language : null);
  const s = liveStrings(language);
  useEffect(() => {
    document.documentElement.lang = language;
    document.title = `Alerta · ${s.title}`;
  }, [language, s]);

  if (!followed) return <Shell s={s}>{<p role="status">{s.loading}</p>}</Shell>;
  if (followed.kind === 'missing') return <Shell s={s}>{<p className="big">{s.missing}</p>}</Shell>;
  if (!view) return <Shell s={s}>{<p role="status">{s.offline}</p>}</Shell>;
  if (view.state === 'ended') {
    return (
      <Shell s={s}>
        <p className="big" data-testid="live-state" data-state="ended">
          {s.ended}
        </p>
      </Shell>
    );
  }
  const active = view.state === 'active';
  return (
    <Shell s={s}>
      <h1>{active ? s.needsHelp(view.owner_name) : s.safe(view.owner_name)}</h1>
      <p className={`big ${active ? 'live-active' : 'sent'}`} data-testid="live-state" data-state={view.state}>
        {active ? s.stateActive : s.stateResolved}
      </p>
      {view.reason && view.reason !== 'button' && (
        <p className="big" data-testid="live-why">
          {s.why[view.reason](view.owner_name)}
        </p>
      )}
      {view.since && <p data-testid="live-since">{s.since(dayClock(view.since, language))}</p>}
      <p className="hint">{s.sentAt(clock(view.created_at, language), ago(view.created_at, now, s))}</p>
      {active && view.position && (
        <Position s={s} position={view.position} now={now} language={language}>
          {view.map && <LiveMap s={s} tiles={view.map} position={view.position} trail={view.trail} />}
        </Position>
      )}
      {active && !view.position && <p className="hint">{s.noPosition}</p>}
      {active && view.position && <p className="hint">{s.trackingUntil(clock(view.tracking_until, language))}</p>}
      <h2>{s.respondersHeading}</h2>
      {view.responders.length === 0 ? (
        <p className="hint">{s.noResponders}</p>
      ) : (
        <ul className="contacts" data-testid="responders" aria-live="polite">
          {view.responders.map((r, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: responders keep the server's order and names repeat.
            <li key={i}>
              <bdi>{r.name || s.someone}</bdi>
              {s.onTheWay(clock(r.created_at, language))}
              {r.channel && <span className="hint"> · {s.via[r.channel]}</span>}
            </li>
          ))}
        </ul>
      )}
      {view.you && (
        <p className="sent" role="status" data-testid="you-answered">
          {s.youAnswered(clock(view.you.created_at, language))}
        </p>
      )}
      {active && !view.you && <AckForm s={s} publicId={publicId} contactKey={contactKey} />}
      {active && view.trail.length > 1 && (
        <>
          <h2>{s.trailHeading}</h2>
          <ol className="contacts" data-testid="trail">
            {view.trail.map((p) => (
              <li key={p.captured_at}>
                <a href={mapsUrl(p.latitude, p.longitude)} rel="noreferrer" target="_blank">
                  {clock(p.captured_at, language)}
                </a>
                <span>{s.accuracy(p.accuracy)}</span>
              </li>
            ))}
          </ol>
        </>
      )}
    </Shell>
  );
}

function Shell({ s, children }: { s: LiveStrings; children: React.ReactNode }) {
  return (
    <main className="alert-page live-page">
      {children}
      <p className="hint">{s.call112}</p>
    </main>
  );
}

/** The latest position with its accuracy and age, the map, and links that open it in the phone's maps. */
function Position({
  s,
  position,
  now,
  language,
  children,
}: {
  s: LiveStrings;
  position: LivePosition;
  now: number;
  language: 'pt' | 'en';
  children?: React.ReactNode;
}) {
  const { latitude, longitude } = position;
  const geo = `geo:${latitude.toFixed(6)},${longitude.toFixed(6)}?q=${latitude.toFixed(6)},${longitude.toFixed(6)}`;
  return (
    <section className="live-position" aria-labelledby="position-heading">
      <h2 id="position-heading">{s.positionHeading}</h2>
      <p data-testid="live-position" data-lat={latitude.toFixed(5)} data-lon={longitude.toFixed(5)}>
        {latitude.toFixed(5)}, {longitude.toFixed(5)} · {s.accuracy(position.accuracy)} ·{' '}
        {ago(position.captured_at, now, s)} ({clock(position.captured_at, language)})
      </p>
      {children}
      <div className="actions">
        <a className="button" href={mapsUrl(latitude, longitude)} rel="noreferrer" target="_blank">
          {s.openMaps}
        </a>
        <a className="button secondary" href={geo}>
          {s.openMapsApp}
        </a>
      </div>
    </section>
  );
}

/**
 * "I'm on my way" with an optional name, checked as the server checks it; remembered on this
 * phone so it is not sent twice. From a contact's own link it always counts.
 */
function AckForm({ s, publicId, contactKey }: { s: LiveStrings; publicId: string; contactKey: string | null }) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<ResponderNameProblem | null>(null);
  const [status, setStatus] = useState<'idle' | 'sending' | 'sent' | 'failed' | 'limited' | 'full'>(() => {
    try {
      return localStorage.getItem(ackKey(publicId)) ? 'sent' : 'idle';
    } catch {
      return 'idle';
    }
  });
  async function submit(event: FormEvent) {
    event.preventDefault();
    const checked = checkResponderName(name);
    if (!checked.ok) {
      setProblem(checked.problem);
      return;
    }
    setProblem(null);
    setStatus('sending');
    const result = await sendAck(publicId, checked.name, contactKey);
    if (result.status === 200 || result.status === 201) {
      try {
        localStorage.setItem(ackKey(publicId), '1');
      } catch {
        // Not remembered: the button simply stays hidden for this visit.
      }
      setStatus('sent');
    } else if (result.status === 429) setStatus('limited');
    else setStatus(result.code === 'too_many_responders' ? 'full' : 'failed');
  }
  if (status === 'sent') {
    return (
      <p className="sent" role="status" data-testid="ack-sent">
        {s.ackSent}
      </p>
    );
  }
  return (
    <form className="fallback" onSubmit={(event) => void submit(event)} noValidate>
      <label htmlFor="responder-name">{s.nameLabel}</label>
      <input
        id="responder-name"
        className="live-input"
        value={name}
        maxLength={RESPONDER_NAME_INPUT_MAX}
        autoComplete="given-name"
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? 'responder-name-problem' : undefined}
        onChange={(event) => {
          setName(event.target.value);
          setProblem(null);
        }}
      />
      {problem && (
        <p id="responder-name-problem" role="alert" data-testid="name-problem">
          {s.nameProblems[problem]}
        </p>
      )}
      <button type="submit" className="button danger" disabled={status === 'sending'}>
        {status === 'sending' ? s.sending : s.onMyWay}
      </button>
      {status === 'failed' && <p role="alert">{s.ackFailed}</p>}
      {status === 'limited' && <p role="alert">{s.ackLimited}</p>}
      {status === 'full' && <p role="alert">{s.ackFull}</p>}
    </form>
  );
}
