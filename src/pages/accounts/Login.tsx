import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { describeFailure } from '../../api/client';
import type { Message } from '../../api/errors';
import { Field } from '../../components/Field';
import { useMessageText } from '../../lib/message';
import { logIn } from '../../store/actions';

/** Login with username (or e-mail) and password; success replaces history with /. */
export function Login() {
  const { t } = useTranslation();
  const text = useMessageText();
  const navigate = useNavigate();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Message | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, Message>>({});

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setFieldErrors({});
    try {
      await logIn(username, password);
      void navigate('/', { replace: true });
    } catch (failure) {
      const mapped = await describeFailure(failure);
      setError(mapped.message);
      setFieldErrors(mapped.fields);
      setBusy(false);
    }
  }

  const notVerified = error && 'key' in error && error.key === 'errors.emailNotVerified';
  return (
    <section className="page narrow">
      <h1>{t('login.title')}</h1>
      <form onSubmit={submit} noValidate>
        {error && (
          <p className="form-error" role="alert">
            {text(error)}
          </p>
        )}
        {notVerified && (
          <p>
            <Link to="/resend-verification">{t('register.resendLink')}</Link>
          </p>
        )}
        <Field
          label={t('login.username')}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          value={username}
          onChange={(event) => setUsername(event.target.value)}
          error={fieldErrors.username && text(fieldErrors.username)}
          required
        />
        <Field
          label={t('login.password')}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          error={fieldErrors.password && text(fieldErrors.password)}
          required
        />
        <button type="submit" className="button primary wide" disabled={busy}>
          {busy ? t('login.submitting') : t('login.submit')}
        </button>
      </form>
      <p>
        <Link to="/reset-password/">{t('login.forgot')}</Link>
      </p>
      <p>
        {t('login.noAccount')} <Link to="/register">{t('login.signup')}</Link>
      </p>
    </section>
  );
}
