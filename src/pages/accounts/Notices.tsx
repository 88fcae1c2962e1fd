import { useTranslation } from 'react-i18next';
import { ActionLinks } from '../../components/ActionLinks';

/** After registering: check your e-mail, then log in. */
export function VerifyEmail() {
  const { t } = useTranslation();
  return (
    <section className="page narrow">
      <h1>{t('verify.title')}</h1>
      <p>{t('verify.body')}</p>
      <p className="note">{t('verify.spam')}</p>
      <ActionLinks
        primary={{ to: '/login', label: t('verify.login') }}
        secondary={{ to: '/resend-verification', label: t('register.resendLink') }}
      />
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
      <ActionLinks primary={{ to: '/login', label: t('confirmed.login') }} />
    </section>
  );
}
