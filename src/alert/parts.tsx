import { useEffect, useState, useSyncExternalStore } from 'react';
import type { PageData } from './api';
import type { GeoState, PositionWatch } from './geo';
import type { Strings } from './i18n';
import { canInstall, install, isInstalled, onInstallChange } from './install';
import { textableNumbers } from './numbers';
import { smsLink } from './sms';
import { applyUpdate, hasUpdate, offlineUnavailable, onOfflineUnavailable, onUpdateReady } from './sw-client';

/** The contacts the alert goes to, with each delivery's status once sent. */
export function ContactList({
  s,
  page,
  statuses,
}: {
  s: Strings;
  page: PageData | null;
  statuses?: {
    contact_name: string;
    status: string;
    withheld?: boolean;
    withheld_reason?: string;
    opted_out?: boolean;
  }[];
}) {
  if (statuses?.length) {
    return (
      <ul className="contacts" aria-live="polite">
        {statuses.map((d, i) => {
          // "Alerted a moment ago" only when the server says this owner's own alert reached them.
          // A number that replied STOP gets nothing from Alerta: the owner should tell them another way.
          const shown = d.opted_out
            ? 'opted_out'
            : !d.withheld
              ? d.status
              : d.withheld_reason === 'recently_alerted'
                ? 'withheld'
                : 'busy';
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: deliveries keep the server's order and may share a name.
            <li key={`${d.contact_name}-${i}`} data-status={shown}>
              <span>{d.contact_name}</span> <strong>{s.status[shown] ?? d.status}</strong>
            </li>
          );
        })}
      </ul>
    );
  }
  if (!page) return null;
  if (!page.contacts.length) return <p>{s.noContacts}</p>;
  return (
    <ul className="contacts">
      {page.contacts.map((c) => (
        // Masked numbers may share their last digits: the id where the copy has one.
        <li key={c.id ?? c.phone_number}>{c.name}</li>
      ))}
    </ul>
  );
}

/** The contacts' live page of an accepted alert, as the server puts it in the SMS. */
export const liveUrlOf = (publicId: string | undefined) =>
  publicId ? `${window.location.origin}/a/${publicId}` : undefined;

/**
 * "Send from my phone": the same text to every cached contact through the phone's own SMS app.
 * Drawn with the countdown; `text` (sms-message.ts, with the SMS layout's rules) loads after it,
 * and the link goes to the SMS app from then on.
 */
export function SmsFallback({ s, page, text }: { s: Strings; page: PageData | null; text: string | undefined }) {
  if (!page?.contacts.length) return null;
  const numbers = textableNumbers(page);
  if (!numbers) {
    // Without the owner's proof the page has masked numbers only: no SMS to build, the text to copy.
    return (
      <div className="fallback" data-testid="sms-fallback-masked">
        <p className="hint">{s.smsFallbackMasked}</p>
        {text !== undefined && <p className="message">{text}</p>}
      </div>
    );
  }
  return (
    <div className="fallback">
      <a className="button secondary" href={text === undefined ? undefined : smsLink(numbers, text)}>
        {s.smsFallback}
      </a>
      <p className="hint">{s.smsFallbackHint}</p>
    </div>
  );
}

/** Follows the position watch. */
export function useGeo(geo: PositionWatch): GeoState {
  return useSyncExternalStore(
    (listener) => geo.subscribe(listener),
    () => geo.state,
  );
}

/** One line on the state of the GPS. */
export function LocationLine({ s, geo, enabled }: { s: Strings; geo: GeoState; enabled: boolean }) {
  let text = s.gpsSearching;
  if (!enabled) text = s.gpsOff;
  else if (geo.fix) text = s.gpsFix(Math.round(geo.fix.accuracy));
  else if (geo.error === 'denied') text = s.gpsDenied;
  else if (geo.error === 'unsupported' || geo.error === 'unavailable') text = s.gpsUnavailable;
  return (
    <p className="location" data-testid="location">
      {text}
    </p>
  );
}

/** The install button where the browser offers it, the steps for iPhone where it does not. */
export function InstallButton({ s, ios }: { s: Strings; ios: boolean }) {
  const [, rerender] = useState(0);
  useEffect(() => onInstallChange(() => rerender((n) => n + 1)), []);
  if (isInstalled()) return <p className="hint">{s.installed}</p>;
  if (canInstall()) {
    return (
      <button type="button" className="button secondary" onClick={() => void install()}>
        {s.install}
      </button>
    );
  }
  // iPhone has no install offer: the steps, and why they matter there.
  return ios ? (
    <>
      <p className="hint" data-testid="ios-steps">
        {s.installIos}
      </p>
      <p className="hint" data-testid="ios-data-warning">
        {s.iosDataWarning}
      </p>
    </>
  ) : null;
}

/** Says so when this browser cannot keep the page offline (no service worker, or it failed to start). */
export function OfflineNote({ s }: { s: Strings }) {
  const [unavailable, setUnavailable] = useState(offlineUnavailable());
  useEffect(() => onOfflineUnavailable(setUnavailable), []);
  if (!unavailable) return null;
  return (
    <p className="hint" role="status" data-testid="offline-unavailable">
      {s.offlineUnavailable}
    </p>
  );
}

/** The new-version banner; the page shows it only when no countdown or send is under way. */
export function UpdateBanner({ s }: { s: Strings }) {
  const [ready, setReady] = useState(hasUpdate());
  useEffect(() => onUpdateReady(() => setReady(true)), []);
  if (!ready) return null;
  return (
    <div className="update" role="status">
      <span>{s.newVersion}</span>
      <button type="button" className="button secondary" onClick={() => void applyUpdate()}>
        {s.reload}
      </button>
    </div>
  );
}
