import { alertMessage, type LocationError } from '../../common/sms-text';
import type { PageData } from './api';
import type { Fix } from './geo';
import type { Strings } from './i18n';
import { textableNumbers } from './numbers';
import { smsLink } from './sms';

/** The SMS the server would send, from what the page knows now. */
export function messageText(
  page: PageData,
  mode: 'real' | 'test',
  location: Fix | null,
  error: LocationError | null | undefined,
  liveUrl?: string,
) {
  return alertMessage({
    language: page.language === 'en' ? 'en' : 'pt',
    ownerName: page.owner_name,
    timeZone: page.time_zone ?? null,
    mode,
    location,
    locationError: page.gps_enabled ? error : 'not_in_plan',
    ...(liveUrl ? { liveUrl } : {}),
  });
}

/** "Send from my phone": the same text to every cached contact through the phone's own SMS app. */
export function SmsFallback({
  s,
  page,
  location,
  error,
  liveUrl,
}: {
  s: Strings;
  page: PageData | null;
  location: Fix | null;
  error: LocationError | null | undefined;
  /** Known once the server has accepted the alert. */
  liveUrl?: string | undefined;
}) {
  if (!page?.contacts.length) return null;
  const text = messageText(page, 'real', location, error, liveUrl);
  const numbers = textableNumbers(page);
  if (!numbers) {
    // Without the owner's proof the page has masked numbers only: no SMS to build, the text to copy.
    return (
      <div className="fallback" data-testid="sms-fallback-masked">
        <p className="hint">{s.smsFallbackMasked}</p>
        <p className="message">{text}</p>
      </div>
    );
  }
  const href = smsLink(numbers, text);
  return (
    <div className="fallback">
      <a className="button secondary" href={href}>
        {s.smsFallback}
      </a>
      <p className="hint">{s.smsFallbackHint}</p>
    </div>
  );
}
