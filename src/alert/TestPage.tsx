import { useCallback, useEffect, useState } from 'react';
import { FIRST_FIX_WAIT_MS, STATUS_POLL_MS } from '../../common/constants';
import { isTestContact } from '../../common/sms-text';
import { readDeviceKey } from '../lib/device-key';
import { type AlertResult, newKey, type PageData, postAlert } from './api';
import { type Check, dryRun, installCheck, sampleMessage } from './dry-run';
import { followDeliveries } from './follow';
import type { PositionWatch } from './geo';
import { pickLanguage } from './i18n';
import { onInstallChange } from './install';
import { ContactList, InstallButton, UpdateBanner, useGeo } from './parts';
import { OwnerSignIn } from './SignIn';
import { isIos } from './sms';
import { loadPage } from './storage';
import './later.css';
import { testStringsFor } from './test-strings';

/** How long the test page follows its test SMS's statuses (ms): 15 polls. */
const TEST_FOLLOW_MS = 15 * STATUS_POLL_MS;

/** The test page (`/test/{token}/`): the dry run as a pass/fail list, plus an optional test SMS. */
export function TestPage({ token, geo }: { token: string; geo: PositionWatch }) {
  const [page, setPage] = useState<PageData | null>(null);
  const [checks, setChecks] = useState<Check[] | null>(null);
  const [testAlert, setTestAlert] = useState<AlertResult | null>(null);
  const [sending, setSending] = useState(false);
  const [testNote, setTestNote] = useState('');
  const [chosenId, setChosenId] = useState('');
  const geoState = useGeo(geo);
  const language = pickLanguage(page?.language);
  const s = testStringsFor(language);

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
    document.documentElement.lang = language;
  }, [language]);

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
    setTestAlert(answer.value);
    await followDeliveries(token, answer.value, (alert) => void setTestAlert(alert), TEST_FOLLOW_MS);
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
      <OwnerSignIn language={language} />
    </main>
  );
}
