import { useEffect, useState } from 'react';
import type { OpenAlert } from '../../common/api/open-alerts';
import { pathOf } from '../../common/api/paths';
import { openAlertsRoutes } from '../../common/api/routes';
import type { Language } from '../../common/constants';
import { call, ownerProof } from './api';
import { dayAndTime, hhmm, type LiveStrings, liveStringsFor } from './live-strings';
import { onAlarmEnded, onOwnerSignedIn } from './owner-proof-asked';
import { SafeButton } from './SafeButton';

/** The owner's open alerts, with this device's key; none without one (the link alone learns nothing of them). */
export async function fetchOpenAlerts(token: string): Promise<OpenAlert[]> {
  if (!Object.keys(ownerProof()).length) return [];
  const answer = await call<OpenAlert[]>(pathOf(openAlertsRoutes.list, { token }), {
    method: openAlertsRoutes.list.method,
    cache: 'no-store',
    headers: ownerProof(),
  });
  return answer.ok ? answer.value : [];
}

/** What raised an alert and when, and since when there has been no sign. */
export function AlertWhy({ s, alert, language }: { s: LiveStrings; alert: OpenAlert; language: Language }) {
  const why = alert.reason === 'missed_daily' || alert.reason === 'missed_checkin' ? alert.reason : 'button';
  return (
    <>
      <p className="big" data-testid="open-alert-why">
        {s.why[why](hhmm(alert.created_at, language))}
      </p>
      {alert.since && <p className="hint">{s.since(dayAndTime(alert.since, language))}</p>}
    </>
  );
}

/** Who said they are on the way, and how (their link, an SMS reply, the call); `announce` reads a newcomer out. */
export function Responders({
  s,
  responders,
  language,
  testId,
  announce = false,
}: {
  s: LiveStrings;
  responders: OpenAlert['responders'];
  language: Language;
  testId: string;
  announce?: boolean;
}) {
  if (!responders.length) return <p className="hint">{s.noResponders}</p>;
  return (
    <ul className="contacts" data-testid={testId} aria-live={announce ? 'polite' : undefined}>
      {responders.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: responders keep the server's order and names repeat.
        <li key={i}>
          <span>{s.responder(r.name || s.someone, hhmm(r.created_at, language))}</span>
          {r.channel && <span className="hint">{s.via[r.channel]}</span>}
        </li>
      ))}
    </ul>
  );
}

/**
 * Every open alert of the owner's on the emergency page, signed in with this device's key: what
 * raised it, when, who is on the way, and "I'm safe" with the all-clear, as after a press. The
 * alert pressed on this visit (`shown`) has its own panel. Read again on each sign-in on the
 * page and when "I'm OK today" ended one.
 */
export function OpenAlerts({
  token,
  language,
  shown,
}: {
  token: string;
  language: Language;
  shown?: string | undefined;
}) {
  const s = liveStringsFor(language);
  const [alerts, setAlerts] = useState<OpenAlert[]>([]);
  const [reads, setReads] = useState(0);
  useEffect(() => {
    const readAgain = () => setReads((n) => n + 1);
    const unsubscribe = [onAlarmEnded(readAgain), onOwnerSignedIn(readAgain)];
    return () => {
      for (const stop of unsubscribe) stop();
    };
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: each read asked for (`reads`) reads the list again.
  useEffect(() => {
    let live = true;
    void fetchOpenAlerts(token).then((found) => live && setAlerts(found));
    return () => {
      live = false;
    };
  }, [token, reads]);

  const listed = alerts.filter((alert) => alert.id !== shown);
  if (!listed.length) return null;
  return (
    <section className="open-alerts" aria-labelledby="open-alerts-heading" data-testid="open-alerts">
      <h2 id="open-alerts-heading">{s.openHeading}</h2>
      {listed.map((alert) => (
        <article key={alert.id} className="open-alert" data-reason={alert.reason}>
          <AlertWhy s={s} alert={alert} language={language} />
          <h3>{s.respondersHeading}</h3>
          <Responders s={s} responders={alert.responders} language={language} testId="open-alert-responders" />
          <SafeButton
            s={s}
            token={token}
            alertId={alert.id}
            resolved={false}
            language={language}
            onResolved={() => undefined}
          />
        </article>
      ))}
    </section>
  );
}
