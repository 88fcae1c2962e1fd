import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useServerConfig } from '../../api/config';
import type { Profile } from '../../api/types';
import { useMessageText } from '../../lib/message';
import { useEuro } from '../../lib/money';
import { loginThenBack } from '../../lib/navigation';
import { useStore } from '../../store';
import { useCheckout } from './useCheckout';

export type TrialState = 'available' | 'inTrial' | 'used' | 'subscribed';

/** Where the person stands with the trial: it decides what the page promises and what its button does. */
export function trialState(profile: Profile | undefined): TrialState {
  if (!profile) return 'available';
  if (profile.has_premium && profile.is_in_trial) return 'inTrial';
  if (profile.has_premium) return 'subscribed';
  if (profile.has_used_trial || profile.trial_start) return 'used';
  return 'available';
}

/**
 * The trial explained, saying what will happen for this person: a free trial (its start button is
 * a premium checkout), the trial already running, a trial used up (Premium is charged at once),
 * or a subscription already active. A visitor who is not logged in is offered the login, which
 * brings them back here.
 */
export function TrialInfo() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const text = useMessageText();
  const euro = useEuro();
  const { plans, sms_price_eur, trial_days } = useServerConfig();
  const loggedIn = useStore((state) => state.access !== null);
  const profile = useStore((state) => state.user?.profile);
  const { checkout, pending, error } = useCheckout('trial.error');
  const state = trialState(profile);
  const price = euro(plans.premium.price_eur);
  const back = (
    <Link className="button secondary" to="/">
      {t('common.back')}
    </Link>
  );
  const checkoutButton = (label: string) => (
    <button
      type="button"
      className="button primary"
      disabled={pending !== null}
      onClick={() => {
        if (loggedIn) void checkout('premium');
        else void navigate(loginThenBack('/trial-info'));
      }}
    >
      {pending ? t('pricing.redirecting') : label}
    </button>
  );

  return (
    <section className="page narrow">
      <h1>{t('trial.title', { count: trial_days })}</h1>
      {state === 'available' && (
        <>
          <p>{t('trial.body', { count: trial_days, limit: plans.premium.contact_limit })}</p>
          <ul>
            <li>{t('trial.card')}</li>
            <li>{t('trial.renews', { count: trial_days })}</li>
            <li>{t('trial.sms', { price: euro(sms_price_eur) })}</li>
          </ul>
        </>
      )}
      {state === 'inTrial' && (
        <p role="status">{t('trial.inTrial', { count: profile?.trial_days_left ?? 0, price })}</p>
      )}
      {state === 'used' && <p role="status">{t('trial.used', { price })}</p>}
      {state === 'subscribed' && (
        <p role="status">{t('trial.subscribed', { plan: t(`plans.${profile?.plan ?? 'premium'}`) })}</p>
      )}
      {!loggedIn && (
        <p className="note">
          {t('pricing.loginFirst')} <Link to={loginThenBack('/trial-info')}>{t('home.login')}</Link>
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {text(error)}
        </p>
      )}
      <div className="actions">
        {state === 'available' && checkoutButton(t('trial.start'))}
        {state === 'used' && checkoutButton(t('trial.subscribe', { price }))}
        {state === 'inTrial' && (
          <Link className="button primary" to="/setup">
            {t('setup.manageSubscription')}
          </Link>
        )}
        {state === 'subscribed' && (
          <Link className="button primary" to="/pricing">
            {t('trial.changePlan')}
          </Link>
        )}
        {back}
      </div>
    </section>
  );
}
