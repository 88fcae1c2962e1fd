import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { HOME_LOADING_MS } from '../../common/constants';
import type { Profile } from '../api/types';
import { LoginOrRegister } from '../components/ActionLinks';
import { useStore } from '../store';
import { loadUser, logOut } from '../store/actions';
import { AlertHistory } from './home/AlertHistory';
import { CurrentCheckin } from './home/CurrentCheckin';
import { DailyOk } from './home/DailyOk';
import { OpenAlerts } from './home/OpenAlerts';

/** The banner state of SPEC §4: trial active, premium, trial ended, or trial inactive. */
export function bannerState(profile: Profile): 'trial' | 'premium' | 'trialEnded' | 'inactive' {
  if (profile.has_premium && profile.is_in_trial) return 'trial';
  if (profile.has_premium) return 'premium';
  if (profile.trial_start) return 'trialEnded';
  return 'inactive';
}

/** The activate-trial link shows only with no premium, no trial start and no trial used. */
export const canActivateTrial = (profile: Profile) =>
  !profile.has_premium && !profile.trial_start && !profile.has_used_trial;

function StatusBanner({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const state = bannerState(profile);
  return (
    <div className={`banner ${state}`} role="status">
      <p>
        {state === 'trial' && t('home.banner.trial', { count: profile.trial_days_left })}
        {state === 'premium' && t('home.banner.premium', { plan: t(`plans.${profile.plan ?? 'premium'}`) })}
        {state === 'trialEnded' && t('home.banner.trialEnded')}
        {state === 'inactive' && t('home.banner.inactive')}
      </p>
      {!profile.has_premium && (
        <div className="actions">
          <Link className="button secondary" to="/pricing">
            {t('home.choosePlan')}
          </Link>
          {canActivateTrial(profile) && (
            <Link className="button primary" to="/trial-info">
              {t('home.activateTrial')}
            </Link>
          )}
        </div>
      )}
    </div>
  );
}

/** The server could not be reached at start: say so, with a retry. */
export function LoadFailed({ messageKey }: { messageKey: string }) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  return (
    <div className="banner warning" role="alert">
      <p>{t(messageKey)}</p>
      <button
        type="button"
        className="button secondary"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          await loadUser();
          setBusy(false);
        }}
      >
        {t('home.retry')}
      </button>
    </div>
  );
}

/** Home: a short loading state, then the logged-out welcome or the user's status. */
export function Home() {
  const { t } = useTranslation();
  const user = useStore((state) => state.user);
  const status = useStore((state) => state.status);
  const loadFailed = useStore((state) => state.loadFailed);
  const access = useStore((state) => state.access);
  const pushToast = useStore((state) => state.pushToast);
  const [waiting, setWaiting] = useState(true);
  // Alarms ended by the daily card's "I'm OK today": the open alerts are read again.
  const [alarmsEnded, setAlarmsEnded] = useState(0);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const checkoutSeen = useRef(false);

  useEffect(() => {
    const timer = setTimeout(() => setWaiting(false), HOME_LOADING_MS);
    return () => clearTimeout(timer);
  }, []);

  // Back from a paid checkout: say so, reload the subscription, and drop the query.
  useEffect(() => {
    if (params.get('checkout') !== 'success' || checkoutSeen.current) return;
    checkoutSeen.current = true;
    pushToast('success', { key: 'home.checkoutSuccess' });
    void loadUser();
    void navigate('/', { replace: true });
  }, [params, pushToast, navigate]);

  if (waiting || status === 'loading') {
    return (
      <section className="page home">
        <p role="status" className="loading">
          {t('common.loading')}
        </p>
      </section>
    );
  }

  if (loadFailed && !user && access) {
    return (
      <section className="page home">
        <LoadFailed messageKey="home.loadFailedNoUser" />
      </section>
    );
  }

  if (user) {
    return (
      <section className="page home">
        <h1>{t('home.welcome', { username: user.username })}</h1>
        {loadFailed && <LoadFailed messageKey="home.loadFailed" />}
        <StatusBanner profile={user.profile} />
        {/* Drawn anew (read again) when the daily card's "I'm OK today" ended an alarm. */}
        {user.token && <OpenAlerts key={alarmsEnded} token={user.token} />}
        {user.token && <CurrentCheckin token={user.token} />}
        {user.token && <DailyOk token={user.token} onAlarmEnded={() => setAlarmsEnded((n) => n + 1)} />}
        <div className="actions">
          <Link className="button primary" to="/setup">
            {t('home.manageContacts')}
          </Link>
          <button type="button" className="button secondary" onClick={() => void logOut()}>
            {t('home.logout')}
          </button>
        </div>
        <AlertHistory />
        <p className="note">{t('home.notReplacement')}</p>
      </section>
    );
  }

  return (
    <section className="page home">
      <h1>{t('app.name')}</h1>
      <p className="tagline">{t('app.tagline')}</p>
      <LoginOrRegister />
      <ul className="bullets">
        <li>{t('home.bullets.one')}</li>
        <li>{t('home.bullets.two')}</li>
        <li>{t('home.bullets.three')}</li>
      </ul>
      <p className="note">{t('home.notReplacement')}</p>
    </section>
  );
}
