import { useEffect, useState, useSyncExternalStore } from 'react';
import { type Language, LIVE_POLL_MS } from '../../common/constants';
import { followLive, type LiveView } from '../live/api';
import { type AlertResult, fetchAlert } from './api';
import { EscalationLine } from './EscalationLine';
import type { Fix, PositionWatch } from './geo';
import { fetchSenderLive, type SenderLive } from './live-api';
import { hhmm, type LiveStrings, liveStringsFor } from './live-strings';
import { Responders } from './OpenAlerts';
import { SafeButton } from './SafeButton';
import { LiveTracker, type TrackingState } from './tracking';

const IDLE: TrackingState = { status: 'stopped', lastSentAt: null };

/**
 * After the alert is accepted: shares the position while the page stays open (premium and
 * trial), shows who answered "on my way" within seconds and, when nobody does, the calls to the
 * contacts, and offers "I'm safe".
 */
export function LivePanel({
  token,
  alert,
  geo,
  gpsEnabled,
  initial,
  language,
}: {
  token: string;
  alert: AlertResult;
  geo: PositionWatch;
  gpsEnabled: boolean;
  initial: Fix | null;
  language: Language;
}) {
  const s = liveStringsFor(language);
  const [info, setInfo] = useState<SenderLive | null>(null);
  const [responders, setResponders] = useState<SenderLive['responders']>([]);
  const [resolved, setResolved] = useState(false);
  const [tracker, setTracker] = useState<LiveTracker | null>(null);
  const [escalation, setEscalation] = useState(alert.escalation);

  useEffect(() => {
    let live = true;
    let stopFollowing = () => {};
    let current: LiveTracker | null = null;
    void fetchSenderLive(token, alert.id).then((answer) => {
      if (!live) return;
      setInfo(answer);
      if (answer) setResponders(answer.responders);
      if (answer && answer.state !== 'active') setResolved(true);
      // Offline the page cannot ask: it tracks on its plan's word and lets the queue carry it.
      const track = answer ? answer.tracking : gpsEnabled;
      if (track && answer?.state !== 'resolved') {
        const startedAt = new Date(alert.created_at).getTime();
        current = new LiveTracker(token, alert.id, geo, Number.isNaN(startedAt) ? Date.now() : startedAt, initial);
        current.start();
        setTracker(current);
      }
      const publicId = answer?.public_id ?? alert.public_id;
      if (publicId) {
        stopFollowing = followLive(publicId, (followed) => {
          if (followed.kind !== 'view') return;
          const view: LiveView = followed.view;
          if (view.state === 'ended') return;
          setResponders(view.responders);
          if (view.state === 'resolved') setResolved(true);
          // An answer, the calls and their progress all reach the live view: the alert says how far the calls got.
          void fetchAlert(token, alert.id).then((answer) => {
            if (live && answer.ok) setEscalation(answer.value.escalation);
          });
        });
      }
    });
    return () => {
      live = false;
      current?.stop();
      stopFollowing();
    };
  }, [token, alert.id, alert.public_id, alert.created_at, geo, gpsEnabled, initial]);

  // The calls go out on the server's clock: ask how far they got at their time, then every few
  // seconds while they wait or ring (a live update brings the answer sooner).
  useEffect(() => {
    if (resolved || (escalation?.status !== 'waiting' && escalation?.status !== 'calling')) return;
    const due = escalation.status === 'waiting' && escalation.at ? Date.parse(escalation.at) - Date.now() + 1000 : 0;
    const timer = setTimeout(
      () =>
        void fetchAlert(token, alert.id).then((answer) =>
          setEscalation(answer.ok ? answer.value.escalation : { ...escalation }),
        ),
      Math.max(LIVE_POLL_MS, due),
    );
    return () => clearTimeout(timer);
  }, [escalation, resolved, token, alert.id]);

  return (
    <section className="live-panel" aria-labelledby="responders-heading">
      {tracker && !resolved && <TrackingLine s={s} tracker={tracker} language={language} />}
      <h2 id="responders-heading">{s.respondersHeading}</h2>
      {!resolved && <EscalationLine s={s} escalation={escalation} language={language} />}
      <Responders s={s} responders={responders} language={language} testId="responders" announce />
      {info?.live_url && (
        <p className="hint">
          {s.livePage}:{' '}
          <a href={info.live_url} target="_blank" rel="noreferrer">
            {info.live_url}
          </a>
        </p>
      )}
      <SafeButton
        s={s}
        token={token}
        alertId={alert.id}
        resolved={resolved}
        language={language}
        onResolved={() => {
          tracker?.stop();
          setResolved(true);
        }}
      />
    </section>
  );
}

function TrackingLine({ s, tracker, language }: { s: LiveStrings; tracker: LiveTracker; language: Language }) {
  const state = useSyncExternalStore(tracker.subscribe, tracker.getState) ?? IDLE;
  const text =
    state.status === 'stopped' ? s.trackingStopped : state.status === 'paused' ? s.trackingPaused : s.tracking;
  return (
    <>
      <p className="location" data-testid="tracking" data-status={state.status}>
        {text} {state.lastSentAt ? s.trackingLastSent(hhmm(state.lastSentAt, language)) : ''}
      </p>
      {state.needsOwner && state.status !== 'stopped' && (
        <p className="hint" role="alert" data-testid="tracking-needs-owner">
          {s.trackingNeedsOwner}
        </p>
      )}
    </>
  );
}
