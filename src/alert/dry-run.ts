/** The test page's dry run: every check a real alert depends on, sending nothing. */
import { fetchPage, type PageData } from './api';
import type { GeoState, PositionWatch } from './geo';
import { pickLanguage } from './i18n';
import { canInstall, isInstalled } from './install';
import { isIos } from './sms';
import { messageText } from './sms-message';
import { loadPage, savePage } from './storage';
import { offlineReady, offlineUnavailable } from './sw-client';
import { type TestStrings, testStringsFor } from './test-strings';

export type Result = 'pass' | 'fail' | 'warn';
export interface Check {
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

export function installCheck(s: TestStrings): Check {
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
export function sampleMessage(page: PageData, geo: GeoState): string {
  const liveUrl = `${window.location.origin}/a/${SAMPLE_ID}`;
  return messageText(page, 'real', geo.fix, geo.error, liveUrl).replace(SAMPLE_ID, '…');
}

/** The dry run: every check of the real alert, with the exact SMS text, sending nothing. */
export async function dryRun(token: string, geo: PositionWatch): Promise<{ checks: Check[]; page: PageData | null }> {
  const checks: Check[] = [];
  const answer = await fetchPage(token);
  const page = answer.ok ? answer.value : ((await loadPage(token))?.data ?? null);
  // The owner's language once known: the list is read by the owner.
  const s = testStringsFor(pickLanguage(page?.language));
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
