import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { TRIAL_DAYS } from '../../../common/constants';
import { useMessageText } from '../../lib/message';
import { useCheckout } from './useCheckout';

/** The trial explained; its start button is a premium checkout. */
export function TrialInfo() {
  const { t } = useTranslation();
  const text = useMessageText();
  const { checkout, pending, error } = useCheckout('trial.error');
  return (
    <section className="page narrow">
      <h1>{t('trial.title')}</h1>
      <p>{t('trial.body', { days: TRIAL_DAYS })}</p>
      <ul>
        <li>{t('trial.card')}</li>
        <li>{t('trial.renews', { days: TRIAL_DAYS })}</li>
        <li>{t('trial.sms')}</li>
      </ul>
      {error && (
        <p className="form-error" role="alert">
          {text(error)}
        </p>
      )}
      <div className="actions">
        <button
          type="button"
          className="button primary"
          disabled={pending !== null}
          onClick={() => void checkout('premium')}
        >
          {pending ? t('pricing.redirecting') : t('trial.start')}
        </button>
        <Link className="button secondary" to="/">
          {t('common.back')}
        </Link>
      </div>
    </section>
  );
}
