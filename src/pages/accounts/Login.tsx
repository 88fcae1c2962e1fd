import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { describeFailure } from '../../api/client';
import { Field } from '../../components/Field';
import { StatusForm } from '../../components/StatusForm';
import { useForm } from '../../lib/form';
import { logIn } from '../../store/actions';

/** Login with username (or e-mail) and password; success replaces history with /. */
export function Login() {
  const { t } = useTranslation();
  const navigate = useNavigate();
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
      void navigate('/', { replace: true });
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
