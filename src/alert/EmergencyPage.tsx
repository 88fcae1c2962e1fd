import { useEffect, useState, useSyncExternalStore } from 'react';
import type { Emergency } from './emergency';
import { pickLanguage, stringsFor } from './i18n';
import { useLater } from './later-load';
import { onAskedToSignIn, onOwnerSignedIn, ownerAskedToSignIn } from './owner-proof-asked';
import {
  ContactList,
  InstallButton,
  LocationLine,
  liveUrlOf,
  OfflineNote,
  SmsFallback,
  UpdateBanner,
  useGeo,
} from './parts';
import { isIos } from './sms';

/** "14:05" in the page's language, or empty when the time cannot be read. */
function timeOf(value: string | number, language: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime())
    ? ''
    : date.toLocaleTimeString(language === 'en' ? 'en-GB' : 'pt-PT', { hour: '2-digit', minute: '2-digit' });
}

/**
 * The real emergency page (`/public/{token}/`): countdown, send, queue, statuses, SMS fallback.
 * What the countdown and the alert's send do not need (the open alerts, the daily check-in, the
 * check-in, the live panel, the sign-in, the text for the phone's own SMS) is drawn once it has
 * loaded, after the first draw (later-load.ts).
 */
export function EmergencyPage({
  emergency,
  onDaily = false,
}: {
  emergency: Emergency;
  /** Opened from the daily check-in's reminder: "I'm OK today" is brought into view. */
  onDaily?: boolean;
}) {
  const { page, phase, alert } = useSyncExternalStore(emergency.subscribe, emergency.getState);
  const later = useLater();
  const geo = useGeo(emergency.geo);
  // "I'm safe" or a position refused for want of the owner's proof: the sign-in is offered.
  const askedToSignIn = useSyncExternalStore(onAskedToSignIn, ownerAskedToSignIn);
  // Each sign-in on this page: "I'm OK today" reads its status again with the new key.
  const [signedIn, setSignedIn] = useState(0);
  // From any of the page's sign-in forms (the one below, or one beside a refused "I'm safe").
  useEffect(
    () =>
      onOwnerSignedIn(() => {
        setSignedIn((count) => count + 1);
        void emergency.ownerSignedIn();
      }),
    [emergency],
  );
  const language = pickLanguage(page?.language);
  const s = stringsFor(language);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);

  // The location that went (or will go) out, for the phone's own SMS.
  const sentLocation = alert?.body.location ?? null;
  const location = alert ? sentLocation : geo.fix;
  const locationError = alert ? alert.body.location_error : geo.error;
  const busy = ['loading', 'countdown', 'sending', 'queued'].includes(phase.name);
  const sentTime = phase.name === 'sent' ? timeOf(phase.alert.created_at, language) : '';
  // A dead link or a lapsed plan sends nothing: the page says only that, and what to do.
  const refused = phase.name === 'invalid' || phase.name === 'inactive';
  const smsText =
    later && page
      ? later.messageText(page, 'real', location, locationError, liveUrlOf(alert?.result?.public_id))
      : undefined;
  const checkin = later && !busy && phase.name !== 'invalid' && (
    <later.CheckinPanel token={emergency.token} geo={emergency.geo} page={page} language={language} />
  );

  return (
    <main className={`alert-page phase-${phase.name}`}>
      <h1>{page ? s.forOwner(page.owner_name) : s.title}</h1>

      {phase.name === 'loading' && <p>{s.loading}</p>}
      {phase.name === 'countdown' && (
        <section className="countdown" aria-live="assertive">
          <p className="big" data-testid="countdown">
            {s.countdown(phase.remaining)}
          </p>
          <button type="button" className="button cancel" onClick={() => emergency.cancel()}>
            {s.cancel}
          </button>
        </section>
      )}
      {(phase.name === 'cancelled' || phase.name === 'ready') && (
        <section role="status">
          {phase.name === 'cancelled' && <p className="big">{s.cancelled}</p>}
          <button type="button" className="button danger" onClick={() => void emergency.send()}>
            {s.sendNow}
          </button>
        </section>
      )}
      {phase.name === 'sending' && (
        <p className="big" role="status">
          {s.sending}
        </p>
      )}
      {phase.name === 'queued' && (
        <p className="big queued" role="status" data-testid="queued">
          {phase.retryAfter ? s.retryAt(phase.retryAfter) : s.queued}
        </p>
      )}
      {phase.name === 'sent' && (
        <p className="big sent" role="status" data-testid="sent">
          {sentTime ? s.sentAt(sentTime) : s.sent}
        </p>
      )}
      {phase.name === 'sent' && phase.alert.recently_alerted && (
        <p className="hint" role="status" data-testid="recently-alerted">
          {s.recentlyAlerted}
        </p>
      )}
      {phase.name === 'sent' && phase.alert.number_busy && (
        <p className="hint" role="status" data-testid="number-busy">
          {s.numberBusy}
        </p>
      )}
      {phase.name === 'invalid' && (
        <p className="big" role="alert">
          {s.invalidLink}
        </p>
      )}
      {phase.name === 'inactive' && (
        <p className="big" role="alert">
          {s.inactive}
        </p>
      )}
      {phase.name === 'failed' && (
        <p className="big" role="alert">
          {s.failed}
        </p>
      )}

      {/* Every open alarm of the owner's, the server's included, with "I'm safe" (never a duress alert): */}
      {/* during the countdown too, so the owner sees why before it goes again. */}
      {later && phase.name !== 'loading' && !refused && (
        <later.OpenAlerts
          token={emergency.token}
          language={language}
          shown={phase.name === 'sent' ? phase.alert.id : undefined}
        />
      )}
      {/* Once sent, the deliveries and who is coming come first: the check-in goes below them. */}
      {later && !busy && !refused && (
        <later.DailyOk
          token={emergency.token}
          language={language}
          fromReminder={onDaily}
          publicKey={page?.push_public_key}
          signedIn={signedIn}
        />
      )}
      {phase.name !== 'sent' && checkin}
      {!refused && <LocationLine s={s} geo={geo} enabled={page?.gps_enabled !== false} />}
      {phase.name !== 'invalid' && (
        <>
          <h2>{s.contactsHeading}</h2>
          <ContactList s={s} page={page} statuses={phase.name === 'sent' ? phase.alert.deliveries : undefined} />
        </>
      )}
      {later && phase.name === 'sent' && (
        <later.LivePanel
          key={phase.alert.id}
          token={emergency.token}
          alert={phase.alert}
          geo={emergency.geo}
          gpsEnabled={page?.gps_enabled !== false}
          initial={sentLocation}
          language={language}
        />
      )}
      {phase.name === 'sent' && (
        <button type="button" className="button secondary" onClick={() => void emergency.send()}>
          {s.sendAgain}
        </button>
      )}
      {phase.name !== 'invalid' && <SmsFallback s={s} page={page} text={smsText} />}
      {phase.name === 'sent' && checkin}
      {!refused && <OfflineNote s={s} />}
      {!busy && phase.name !== 'invalid' && <InstallButton s={s} ios={isIos()} />}
      {!busy && <UpdateBanner s={s} />}
      <p className="hint">{s.notEmergency}</p>
      {later && !busy && phase.name !== 'invalid' && (
        // Also when the alert was not taken as the owner's, or a change only the owner may make was
        // refused: the key here may be stale or another account's.
        <later.OwnerSignIn
          language={language}
          offer={(phase.name === 'sent' && phase.alert.proven === false) || askedToSignIn}
        />
      )}
    </main>
  );
}
