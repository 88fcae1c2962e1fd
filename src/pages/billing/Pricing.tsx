import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PLAN_PRICES_EUR, SMS_PRICE_EUR } from '../../../common/constants';
import type { Plan } from '../../api/types';
import { useMessageText } from '../../lib/message';
import { useStore } from '../../store';
import { useCheckout } from './useCheckout';

const PLANS: Plan[] = ['basic', 'premium'];
// Euro prices as Portugal and Ireland write them ("3 €", "€3").
const NUMBER_LOCALES: Record<string, string> = { pt: 'pt-PT', en: 'en-IE' };

/** The two plans, each with a checkout button, and the note on SMS cost. */
export function Pricing() {
  const { t, i18n } = useTranslation();
  const text = useMessageText();
  const loggedIn = useStore((state) => state.access !== null);
  const { checkout, pending, error } = useCheckout('pricing.error');
  const euro = (value: number) =>
    new Intl.NumberFormat(NUMBER_LOCALES[i18n.language] ?? i18n.language, {
      style: 'currency',
      currency: 'EUR',
      minimumFractionDigits: value < 1 ? 2 : 0,
    }).format(value);

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
      <div className="plans">
        {PLANS.map((plan) => (
          <article key={plan} className={`plan ${plan}`}>
            <h2>{t(`plans.${plan}`)}</h2>
            <p className="price">{t('pricing.perMonth', { price: euro(PLAN_PRICES_EUR[plan]) })}</p>
            <ul>
              <li>{t(`pricing.${plan}.contacts`)}</li>
              <li>{t(`pricing.${plan}.feature`)}</li>
            </ul>
            <button
              type="button"
              className={`button ${plan === 'premium' ? 'primary' : 'secondary'} wide`}
              disabled={pending !== null}
              onClick={() => void checkout(plan)}
            >
              {pending === plan ? t('pricing.redirecting') : t('pricing.choose', { plan: t(`plans.${plan}`) })}
            </button>
          </article>
        ))}
      </div>
      <p className="note">{t('pricing.smsNote', { price: euro(SMS_PRICE_EUR) })}</p>
      <p className="note">{t('pricing.trialNote')}</p>
    </section>
  );
}
