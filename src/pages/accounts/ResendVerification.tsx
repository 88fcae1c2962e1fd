import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { RESEND_REDIRECT_MS } from '../../../common/constants';
import { resendVerification } from '../../api/endpoints';
import type { Message } from '../../api/errors';
import { useStore } from '../../store';
import { EmailForm } from './EmailForm';

/** Resends the verification mail; success toasts and goes to /login after 2 s. `?error=invalid` says the link was bad. */
export function ResendVerification() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const pushToast = useStore((state) => state.pushToast);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<Message | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function send(email: string) {
    setBusy(true);
    setError(null);
    try {
      await resendVerification(email);
      pushToast('success', { key: 'verify.resent' });
      setSent(true);
      timer.current = setTimeout(() => void navigate('/login'), RESEND_REDIRECT_MS);
    } catch {
      setError({ key: 'verify.resentFail' });
      setBusy(false);
    }
  }

  return (
    <section className="page narrow">
      <h1>{t('verify.resendTitle')}</h1>
      {params.get('error') === 'invalid' && (
        <p className="form-error" role="alert">
          {t('verify.invalidLink')}
        </p>
      )}
      <p>{t('verify.resendIntro')}</p>
      <EmailForm
        submitLabel={t('verify.resendSubmit')}
        onSubmit={send}
        error={error}
        success={sent ? { key: 'verify.resent' } : null}
        busy={busy || sent}
      />
      <p>
        <Link to="/login">{t('reset.backToLogin')}</Link>
      </p>
    </section>
  );
}
