import { useCallback, useEffect, useState } from 'react';
import { FIRST_FIX_WAIT_MS, STATUS_POLL_MS } from '../../common/constants';
import { isTestContact } from '../../common/sms-text';
import { readDeviceKey } from '../lib/device-key';
import { type AlertResult, fetchAlert, fetchPage, newKey, type PageData, postAlert } from './api';
import type { GeoState, PositionWatch } from './geo';
import { pickLanguage, type Strings, stringsFor } from './i18n';
import { canInstall, isInstalled, onInstallChange } from './install';
import { ContactList, InstallButton, messageText, UpdateBanner, useGeo } from './parts';
import { OwnerSignIn } from './SignIn';
import { isIos } from './sms';
import { loadPage, savePage } from './storage';
import { offlineReady, offlineUnavailable } from './sw-client';

type Result = 'pass' | 'fail' | 'warn';
interface Check {
  id: string;
  label: string;
  result: Result;
  detail: string;
}

/** How long the dry run waits for a GPS fix before reporting the location as failing (ms). */
const LOCATION_CHECK_MS = 10_000;
/** How long the check waits for the browser to answer a request for persistent storage (ms). */
const PERSIST_WAIT_MS = 1500;
/** A fix less precise than this still works but deserves a warning (m). */
const ACCURACY_WARN_M = 100;

function installCheck(s: Strings): Check {
  const base = { id: 'install', label: s.checkInstall };
  if (isInstalled()) return { ...base, result: 'pass', detail: s.installed };
  if (canInstall()) return { ...base, result: 'pass', detail: s.installAvailable };
  return { ...base, result: 'warn', detail: isIos() ? s.installIos : s.installNotOffered };
}

/**
 * Asks for persistent storage and says whether it is granted. Chromium answers at once; Firefox
 * asks the person and may never answer, so the check waits at most a moment for the request.
 */
async function persistentStorage(): Promise<boolean> {
  const storage = navigator.storage;
  try {
    if (!storage?.persisted) return false;
    if (await storage.persisted()) return true;
    await Promise.race([storage.persist?.(), new Promise((resolve) => setTimeout(resolve, PERSIST_WAIT_MS))]);
    return await storage.persisted();
  } catch {
    return false;
  }
}

/** The live link's id is new for each alert: a stand-in of the same length keeps the text's length exact. */
const SAMPLE_ID = 'x'.repeat(22);

/** The real alert's text as it would go now, with the live link's id shown as "…". */
function sampleMessage(page: PageData, geo: GeoState): string {
  const liveUrl = `${window.location.origin}/a/${SAMPLE_ID}`;
  return messageText(page, 'real', geo.fix, geo.error, liveUrl).replace(SAMPLE_ID, '…');
}

/** The dry run: every check of the real alert, with the exact SMS text, sending nothing. */
async function dryRun(token: string, geo: PositionWatch): Promise<{ checks: Check[]; page: PageData | null }> {
  const checks: Check[] = [];
  const answer = await fetchPage(token);
  const page = answer.ok ? answer.value : ((await loadPage(token))?.data ?? null);
  // The owner's language once known: the list is read by the owner.
  const s = stringsFor(pickLanguage(page?.language));
  if (answer.ok) await savePage(token, answer.value);
  const status = answer.ok ? 200 : answer.status;
  checks.push({
    id: 'network',
    label: s.checkNetwork,
    result: status === 'network' ? 'fail' : 'pass',
    detail: status === 'network' ? s.offline : s.online,
  });
  checks.push({
    id: 'token',
    label: s.checkToken,
    result: status === 404 ? 'fail' : status === 'network' ? 'warn' : 'pass',
    detail: status === 404 ? s.invalidLink : '',
  });
  checks.push({
    id: 'subscription',
    label: s.checkSubscription,
    result: status === 402 ? 'fail' : status === 200 ? 'pass' : 'warn',
    detail: status === 402 ? s.inactive : '',
  });
  const count = page?.contacts.length ?? 0;
  checks.push({
    id: 'contacts',
    label: s.checkContacts,
    result: count > 0 ? 'pass' : 'fail',
    detail: count > 0 ? s.contactsCount(count) : s.noContacts,
  });
  if (page && !page.gps_enabled) {
    checks.push({ id: 'location', label: s.checkLocation, result: 'warn', detail: s.gpsOff });
  } else {
    geo.start();
    const { location, location_error } = await geo.forAlert(LOCATION_CHECK_MS);
    const accuracy = location ? Math.round(location.accuracy) : 0;
    checks.push({
      id: 'location',
      label: s.checkLocation,
      result: !location ? 'fail' : accuracy > ACCURACY_WARN_M ? 'warn' : 'pass',
      detail: location ? s.gpsFix(accuracy) : location_error === 'denied' ? s.gpsDenied : s.gpsUnavailable,
    });
  }
  // A first visit waits for the new worker to take control, so the list is right without "check again".
  const ready = (await offlineReady()) && Boolean(await loadPage(token));
  checks.push({
    id: 'offline',
    label: s.checkOffline,
    result: ready ? 'pass' : 'fail',
    detail: ready ? s.offlineReady : offlineUnavailable() ? s.offlineUnavailable : s.offlineNotReady,
  });
  const persisted = await persistentStorage();
  checks.push({
    id: 'storage',
    label: s.checkStorage,
    result: persisted ? 'pass' : 'warn',
    detail: persisted ? s.storageGranted : s.storageNotGranted,
  });
  checks.push(installCheck(s));
  return { checks, page };
}

/** The test page (`/test/{token}/`): the dry run as a pass/fail list, plus an optional test SMS. */
export function TestPage({ token, geo }: { token: string; geo: PositionWatch }) {
  const [page, setPage] = useState<PageData | null>(null);
  const [checks, setChecks] = useState<Check[] | null>(null);
  const [testAlert, setTestAlert] = useState<AlertResult | null>(null);
  const [sending, setSending] = useState(false);
  const [testNote, setTestNote] = useState('');
  const [chosenId, setChosenId] = useState('');
  const geoState = useGeo(geo);
  const s = stringsFor(pickLanguage(page?.language));

  const run = useCallback(async () => {
    setChecks(null);
    const cached = await loadPage(token);
    if (cached) setPage(cached.data);
    const outcome = await dryRun(token, geo);
    setPage(outcome.page);
    setChecks(outcome.checks);
  }, [token, geo]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the dry run runs once on open; "check again" runs it on demand.
  useEffect(() => {
    void run();
  }, []);
  useEffect(
    () =>
      onInstallChange(() => setChecks((list) => list?.map((c) => (c.id === 'install' ? installCheck(s) : c)) ?? null)),
    [s],
  );
  useEffect(() => {
    document.documentElement.lang = pickLanguage(page?.language);
  }, [page]);

  const sendTest = async () => {
    setSending(true);
    const location = page?.gps_enabled === false ? { location: null } : await geo.forAlert(FIRST_FIX_WAIT_MS);
    const answer = await postAlert(
      token,
      newKey(),
      {
        mode: 'test',
        ...location,
        ...(testContact?.id ? { contact_id: testContact.id } : {}),
      },
      readDeviceKey()?.key,
    );
    setSending(false);
    if (!answer.ok) {
      setTestNote(answer.status === 429 && answer.retryAfter ? s.retryAt(answer.retryAfter) : s.testSmsFailed);
      return;
    }
    if (answer.value === 'queued') {
      setTestNote(s.queued);
      return;
    }
    setTestNote('');
    let alert = answer.value;
    setTestAlert(alert);
    for (let i = 0; i < 15 && alert.deliveries.some((d) => !['delivered', 'failed'].includes(d.status)); i += 1) {
      await new Promise((r) => setTimeout(r, STATUS_POLL_MS));
      const next = await fetchAlert(token, alert.id);
      if (next.ok) {
        alert = next.value;
        setTestAlert(alert);
      }
    }
  };

  const ok = checks !== null && !checks.some((c) => c.result === 'fail');
  // The person picks the one contact who gets the test SMS (a "TEST …" contact first, if any).
  // A copy cached before contacts had ids falls back to the contacts named "TEST …".
  const choosable = page?.contacts.filter((c) => c.id) ?? [];
  const testContact =
    choosable.find((c) => c.id === chosenId) ?? choosable.find((c) => isTestContact(c.name)) ?? choosable[0];
  const hasTestContact = Boolean(testContact ?? page?.contacts.some((c) => isTestContact(c.name)));
  return (
    <main className="alert-page test-page">
      <h1>{page ? `${s.testTitle} · ${page.owner_name}` : s.testTitle}</h1>
      <h2>{s.dryRun}</h2>
      {checks === null ? (
        <p role="status">{s.checking}</p>
      ) : (
        <ul className="checks" aria-label={s.dryRun}>
          {checks.map((c) => (
            <li key={c.id} data-check={c.id} data-result={c.result}>
              <strong>{c.result === 'pass' ? s.pass : c.result === 'fail' ? s.fail : s.warn}</strong>{' '}
              <span>{c.label}</span>
              {c.detail && <span className="hint"> — {c.detail}</span>}
            </li>
          ))}
        </ul>
      )}
      {page && (
        <>
          <h2>{s.messageHeading}</h2>
          <blockquote className="message" data-testid="message">
            {sampleMessage(page, geoState)}
          </blockquote>
          <p className="hint">{s.liveLinkNote}</p>
          <h2>{s.contactsHeading}</h2>
          <ContactList s={s} page={page} statuses={testAlert?.deliveries} />
        </>
      )}
      {testAlert && <p role="status">{s.testSmsSent}</p>}
      {testNote && <p role="status">{testNote}</p>}
      {ok && choosable.length > 0 && (
        <div className="field">
          <label htmlFor="test-contact">{s.testContact}</label>
          <select id="test-contact" value={testContact?.id} onChange={(event) => setChosenId(event.target.value)}>
            {choosable.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.phone_number})
              </option>
            ))}
          </select>
          <p className="hint">{s.testContactHint}</p>
        </div>
      )}
      <div className="actions">
        <button type="button" className="button secondary" onClick={() => void run()} disabled={checks === null}>
          {s.runAgain}
        </button>
        {ok && hasTestContact && (
          <button type="button" className="button" onClick={() => void sendTest()} disabled={sending}>
            {s.sendTestSms}
          </button>
        )}
      </div>
      {ok && page && !hasTestContact && <p className="hint">{s.noTestContact}</p>}
      <InstallButton s={s} ios={isIos()} />
      <UpdateBanner s={s} />
      <p className="hint">{s.notEmergency}</p>
      <OwnerSignIn s={s} />
    </main>
  );
}
