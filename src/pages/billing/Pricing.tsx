import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useServerConfig } from '../../api/config';
import { changePlan } from '../../api/endpoints';
import type { Plan } from '../../api/types';
import { useMessageText } from '../../lib/message';
import { useEuro } from '../../lib/money';
import { useStore } from '../../store';
import { loadUser } from '../../store/actions';
import { checkoutError, useCheckout } from './useCheckout';

const PLANS: Plan[] = ['basic', 'premium'];

/**
 * The two plans and the note on SMS cost, with the server's prices and limits. Without a subscription each button opens a checkout;
 * a subscriber's current plan is marked and the other one is a plan change at the provider.
 */
export function Pricing() {
  const { t } = useTranslation();
  const text = useMessageText();
  const euro = useEuro();
  const { plans, sms_price_eur, trial_days } = useServerConfig();
  const loggedIn = useStore((state) => state.access !== null);
  const profile = useStore((state) => state.user?.profile);
  const pushToast = useStore((state) => state.pushToast);
  const { checkout, pending, error, setError } = useCheckout('pricing.error');
  const [changing, setChanging] = useState<Plan | null>(null);
  const current = profile?.has_premium ? profile.plan : null;

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
          {t('pricing.loginFirst')} <Link to="/login">{t('home.login')}</Link>
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
              onClick={() => void (current ? switchTo(plan) : checkout(plan))}
            >
              {label(plan)}
            </button>
          </article>
        ))}
      </div>
      <p className="note">{t('pricing.smsNote', { price: euro(sms_price_eur) })}</p>
      <p className="note">{t('pricing.callNote', { price: euro(sms_price_eur) })}</p>
      <p className="note">{t('pricing.trialNote', { count: trial_days })}</p>
    </section>
  );
}
