import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** After registering: check your e-mail, then log in. */
export function VerifyEmail() {
  const { t } = useTranslation();
  return (
    <section className="page narrow">
      <h1>{t('verify.title')}</h1>
      <p>{t('verify.body')}</p>
      <p className="note">{t('verify.spam')}</p>
      <div className="actions">
        <Link className="button primary" to="/login">
          {t('verify.login')}
        </Link>
        <Link className="button secondary" to="/resend-verification">
          {t('register.resendLink')}
        </Link>
      </div>
    </section>
  );
}

/** The verification link's landing page. */
export function EmailConfirmed() {
  const { t } = useTranslation();
  return (
    <section className="page narrow">
      <h1>{t('confirmed.title')}</h1>
      <p>{t('confirmed.body')}</p>
      <div className="actions">
        <Link className="button primary" to="/login">
          {t('confirmed.login')}
        </Link>
      </div>
    </section>
  );
}
