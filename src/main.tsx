import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { prerenderKey } from '../common/app-routes';
import { App } from './App';
import { keepLanguageCookie, storedLanguage } from './i18n';
import { syncDeviceKeyMirror } from './lib/device-key';
import { useStore } from './store';
import './styles.css';

const root = document.getElementById('root')!;
const app = (
  <StrictMode>
    <BrowserRouter>
      <App />
    </BrowserRouter>
  </StrictMode>
);

keepLanguageCookie();
// The service worker's copy of this device's key follows the one stored here.
void syncDeviceKeyMirror();
// A page the build drew (PRERENDERED_ROUTES) is taken over as it stands when the app's first
// render draws the same one: in this language and year, at this address, for a visitor not
// logged in. Otherwise the app draws the page anew in place of the drawn one.
const drawnForThis =
  root.dataset.prerendered === prerenderKey(storedLanguage(), new Date().getFullYear(), window.location.pathname) &&
  useStore.getState().access === null;
// As a transition the taking over is done in slices, with the page answering in between.
if (drawnForThis)
  startTransition(() => {
    hydrateRoot(root, app);
  });
else createRoot(root).render(app);
