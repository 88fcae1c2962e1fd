import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useServerConfig } from '../../api/config';
import { changePlan } from '../../api/endpoints';
import type { Plan } from '../../api/types';
import { useMessageText } from '../../lib/message';
import { useEuro } from '../../lib/money';
import { loginThenBack } from '../../lib/navigation';
import { useStore } from '../../store';
import { loadUser } from '../../store/actions';
import { trialState } from './TrialInfo';
import { checkoutError, useCheckout } from './useCheckout';

const PLANS: Plan[] = ['basic', 'premium'];

/**
 * The two plans and the note on SMS cost, with the server's prices and limits. Without a subscription each button opens a checkout;
 * a subscriber's current plan is marked and the other one is a plan change at the provider. A
 * visitor who is not logged in is sent to log in first, and brought back here.
 */
export function Pricing() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const text = useMessageText();
  const euro = useEuro();
  const { plans, sms_price_eur, trial_days } = useServerConfig();
  const loggedIn = useStore((state) => state.access !== null);
  const profile = useStore((state) => state.user?.profile);
  const pushToast = useStore((state) => state.pushToast);
  const { checkout, pending, error, setError } = useCheckout('pricing.error');
  const [changing, setChanging] = useState<Plan | null>(null);
  const current = profile?.has_premium ? profile.plan : null;
  // Unknown while a logged-in person's account loads.
  const trial = loggedIn && !profile ? null : trialState(profile);

  async function switchTo(plan: Plan) {
    setChanging(plan);
    setError(null);
    try {
      await changePlan(plan);
      await loadUser();
      pushToast('success', { key: 'pricing.changed', params: { plan: t(`plans.${plan}`) } });
    } catch (failure) {
      setError(await checkoutError(failure, 'pricing.changeError'));
    } finally {
      setChanging(null);
    }
  }

  function choose(plan: Plan) {
    if (!loggedIn) void navigate(loginThenBack('/pricing'));
    else if (current) void switchTo(plan);
    else void checkout(plan);
  }

  const label = (plan: Plan) => {
    if (pending === plan || changing === plan) return t('pricing.redirecting');
    if (plan === current) return t('pricing.current');
    if (current) return t('pricing.switch', { plan: t(`plans.${plan}`) });
    return t('pricing.choose', { plan: t(`plans.${plan}`) });
  };

  return (
    <section className="page">
      <h1>{t('pricing.title')}</h1>
      <p>{t('pricing.intro')}</p>
      {error && (
        <p className="form-error" role="alert">
          {text(error)}
        </p>
      )}
      {!loggedIn && (
        <p className="note">
          {t('pricing.loginFirst')} <Link to={loginThenBack('/pricing')}>{t('home.login')}</Link>
        </p>
      )}
      {current && <p className="note">{t('pricing.changeNote', { count: plans.basic.contact_limit })}</p>}
      <div className="plans">
        {PLANS.map((plan) => (
          <article key={plan} className={`plan ${plan}`}>
            <h2>{t(`plans.${plan}`)}</h2>
            <p className="price">{t('pricing.perMonth', { price: euro(plans[plan].price_eur) })}</p>
            <ul>
              <li>{t('pricing.contacts', { count: plans[plan].contact_limit })}</li>
              <li>{t(`pricing.${plan}.feature`)}</li>
            </ul>
            <button
              type="button"
              className={`button ${plan === 'premium' ? 'primary' : 'secondary'} wide`}
              disabled={pending !== null || changing !== null || plan === current}
              onClick={() => choose(plan)}
            >
              {label(plan)}
            </button>
          </article>
        ))}
      </div>
      <p className="note">{t('pricing.smsNote', { price: euro(sms_price_eur) })}</p>
      <p className="note">{t('pricing.callNote', { price: euro(sms_price_eur) })}</p>
      {/* The trial is promised only to whoever can still have it. */}
      {trial === 'available' && <p className="note">{t('pricing.trialNote', { count: trial_days })}</p>}
      {trial === 'used' && <p className="note">{t('trial.used', { price: euro(plans.premium.price_eur) })}</p>}
    </section>
  );
}
