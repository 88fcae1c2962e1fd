import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Route, Routes, useLocation } from 'react-router';
import { NavigationBridge } from './components/NavigationBridge';
import { PageTitle } from './components/PageTitle';
import { ReloadPrompt } from './components/ReloadPrompt';
import { Toasts } from './components/Toasts';
import { TopBar } from './components/TopBar';
import { Login } from './pages/accounts/Login';
import { EmailConfirmed, VerifyEmail } from './pages/accounts/Notices';
import { Register } from './pages/accounts/Register';
import { ResendVerification } from './pages/accounts/ResendVerification';
import { ResetConfirm } from './pages/accounts/ResetConfirm';
import { ResetRequest } from './pages/accounts/ResetRequest';
import { Cancel } from './pages/billing/Cancel';
import { Pricing } from './pages/billing/Pricing';
import { TrialInfo } from './pages/billing/TrialInfo';
import { Home } from './pages/Home';
import { Legal, Privacy } from './pages/info/InfoPage';
import { useStore } from './store';
import { loadUser } from './store/actions';
import { followOtherTabs } from './store/session';

// The setup screen carries the phone widget and its country data: loaded only when opened.
const Setup = lazy(() => import('./pages/setup/Setup'));

const CONTACT_EMAIL = 'ajuda@alerta.app';

function NotFound() {
  const { t } = useTranslation();
  return (
    <section className="page narrow">
      <h1>{t('notFound.title')}</h1>
      <Link className="button secondary" to="/">
        {t('common.back')}
      </Link>
    </section>
  );
}

function Loading() {
  const { t } = useTranslation();
  return (
    <p className="page" role="status">
      {t('common.loading')}
    </p>
  );
}

/** The app shell: top bar, the routes of the specification (animated on change), toasts, footer. */
export function App() {
  const { t } = useTranslation();
  const location = useLocation();
  // The page the app opens on is shown at once (as the server may have drawn it already); each
  // page moved to afterwards fades in.
  const [openedOn] = useState(location.key);
  const [moved, setMoved] = useState(false);
  if (!moved && location.key !== openedOn) setMoved(true);
  useEffect(() => {
    void loadUser();
    const stopFollowing = followOtherTabs(useStore);
    // Back online after a start without the server: load the user again.
    const retry = () => {
      if (useStore.getState().loadFailed) void loadUser();
    };
    window.addEventListener('online', retry);
    return () => {
      stopFollowing();
      window.removeEventListener('online', retry);
    };
  }, []);

  return (
    <div className="shell">
      <NavigationBridge />
      <PageTitle />
      <TopBar />
      <main>
        <div key={location.pathname} className={moved ? 'page-transition' : undefined}>
          <Suspense fallback={<Loading />}>
            <Routes location={location}>
              <Route path="/" element={<Home />} />
              <Route path="/setup" element={<Setup />} />
              <Route path="/legal" element={<Legal />} />
              <Route path="/privacy" element={<Privacy />} />
              <Route path="/pricing" element={<Pricing />} />
              <Route path="/login" element={<Login />} />
              <Route path="/register" element={<Register />} />
              <Route path="/verify-email" element={<VerifyEmail />} />
              <Route path="/email-confirmed" element={<EmailConfirmed />} />
              <Route path="/reset-password" element={<ResetRequest />} />
              <Route path="/reset-password-confirm/:uid/:token" element={<ResetConfirm />} />
              <Route path="/trial-info" element={<TrialInfo />} />
              <Route path="/cancel" element={<Cancel />} />
              <Route path="/resend-verification" element={<ResendVerification />} />
              <Route path="*" element={<NotFound />} />
            </Routes>
          </Suspense>
        </div>
      </main>
      <Toasts />
      <ReloadPrompt />
      <footer className="footer">
        <span>{t('footer.copyright', { year: new Date().getFullYear() })}</span>
        <span>
          {t('footer.contactLabel')} <a href={`mailto:${CONTACT_EMAIL}`}>{CONTACT_EMAIL}</a>
        </span>
      </footer>
    </div>
  );
}
