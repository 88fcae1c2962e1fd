import { useTranslation } from 'react-i18next';
import { Route, Routes } from 'react-router';
import { TopBar } from './components/TopBar';
import { Home } from './pages/Home';
import { Placeholder } from './pages/Placeholder';

const CONTACT_EMAIL = 'ajuda@alerta.app';

const ROUTES = [
  '/setup',
  '/legal',
  '/privacy',
  '/pricing',
  '/login',
  '/register',
  '/verify-email',
  '/email-confirmed',
  '/reset-password/',
  '/reset-password-confirm/:uid/:token',
  '/trial-info',
  '/cancel',
  '/resend-verification',
];

/** The app shell: top bar, the routes of the specification, footer. */
export function App() {
  const { t } = useTranslation();
  return (
    <div className="shell">
      <TopBar />
      <main>
        <Routes>
          <Route path="/" element={<Home />} />
          {ROUTES.map((path) => (
            <Route key={path} path={path} element={<Placeholder />} />
          ))}
          <Route path="*" element={<Placeholder />} />
        </Routes>
      </main>
      <footer className="footer">
        <span>{t('footer.copyright', { year: new Date().getFullYear() })}</span>
        <span>{t('footer.contact', { email: CONTACT_EMAIL })}</span>
      </footer>
    </div>
  );
}
