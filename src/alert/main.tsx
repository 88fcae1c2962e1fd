import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { CHECKIN_REMINDER_HASH, DAILY_REMINDER_HASH } from '../../common/push';
import { syncDeviceKeyMirror } from '../lib/device-key';
import { EmergencyPage } from './EmergencyPage';
import { Emergency } from './emergency';
import { PositionWatch } from './geo';
import { linkManifest, watchInstallOffer } from './install';
import { readOpening } from './shell';
import { startServiceWorker } from './sw-client';
import './alert.css';

// `/public/{token}/` is the real alert, `/test/{token}/` the dry run.
const [, segment, rawToken = ''] = window.location.pathname.split('/');
const mode = segment === 'test' ? 'test' : 'public';
const token = decodeURIComponent(rawToken);

// Read before linkManifest makes the address the bare link.
const opening = mode === 'public' ? readOpening() : {};
// Opened from a reminder (a check-in's or the daily check-in's): no countdown; the daily one's
// opens on "I'm OK today".
const onDaily = window.location.hash === DAILY_REMINDER_HASH;
const fromReminder = onDaily || window.location.hash === CHECKIN_REMINDER_HASH;

watchInstallOffer();
linkManifest(mode, token);
startServiceWorker();
// The service worker's copy of this device's key follows the one stored here.
void syncDeviceKeyMirror();

const geo = new PositionWatch();
const container = document.getElementById('root')!;
/** Empties the root for the page to draw: in the same task as its first draw, so nothing flickers. */
const rootInPlace = () => {
  container.replaceChildren();
  return createRoot(container);
};
if (mode === 'test') {
  // The dry run has no countdown to show first: its page loads with its own strings.
  void import('./TestPage').then(({ TestPage }) =>
    rootInPlace().render(
      <StrictMode>
        <TestPage token={token} geo={geo} />
      </StrictMode>,
    ),
  );
} else {
  // Created once, outside React: opening the page is the press, and it must happen exactly once.
  const emergency = new Emergency(token, geo, fromReminder, opening);
  void emergency.start();
  // The countdown the HTML came with is drawn again by the page.
  rootInPlace().render(
    <StrictMode>
      <EmergencyPage emergency={emergency} onDaily={onDaily} />
    </StrictMode>,
  );
}
