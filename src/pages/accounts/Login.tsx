import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { describeFailure } from '../../api/client';
import { Field } from '../../components/Field';
import { StatusForm } from '../../components/StatusForm';
import { useForm } from '../../lib/form';
import { afterLogin } from '../../lib/navigation';
import { logIn } from '../../store/actions';

/** Login with username (or e-mail) and password; success replaces history with / (or the page that sent the person here). */
export function Login() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { values, field, busy, setBusy, error, showFailure, clearErrors } = useForm({
    username: '',
    password: '',
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    clearErrors();
    try {
      await logIn(values.username, values.password);
      void navigate(afterLogin(params.get('next')), { replace: true });
    } catch (failure) {
      showFailure(await describeFailure(failure));
      setBusy(false);
    }
  }

  const notVerified = error && 'key' in error && error.key === 'errors.emailNotVerified';
  return (
    <section className="page narrow">
      <h1>{t('login.title')}</h1>
      <StatusForm
        onSubmit={submit}
        error={error}
        submitLabel={busy ? t('login.submitting') : t('login.submit')}
        disabled={busy}
      >
        {notVerified && (
          <p>
            <Link to="/resend-verification">{t('register.resendLink')}</Link>
          </p>
        )}
        <Field {...field('username', t('login.username'))} autoComplete="username" autoCapitalize="none" required />
        <Field {...field('password', t('login.password'))} type="password" autoComplete="current-password" required />
      </StatusForm>
      <p>
        <Link to="/reset-password/">{t('login.forgot')}</Link>
      </p>
      <p>
        {t('login.noAccount')} <Link to="/register">{t('login.signup')}</Link>
      </p>
    </section>
  );
}
