import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { REGISTER_REDIRECT_MS } from '../../../common/constants';
import { passwordAcceptable, passwordChecks } from '../../../common/password-rules';
import { describeFailure } from '../../api/client';
import { register } from '../../api/endpoints';
import type { Message } from '../../api/errors';
import { Field } from '../../components/Field';
import { PasswordChecklist } from '../../components/PasswordChecklist';
import { useMessageText } from '../../lib/message';

const EMPTY = { username: '', email: '', password1: '', password2: '' };

/** Registration: live password checklist; submit only with terms ticked, checklist passing and nothing in flight. */
export function Register() {
  const { t } = useTranslation();
  const text = useMessageText();
  const navigate = useNavigate();
  const [form, setForm] = useState(EMPTY);
  const [terms, setTerms] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<Message | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, Message>>({});
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const checks = passwordChecks(form.password1);
  const canSubmit = terms && passwordAcceptable(checks) && !busy && !done;
  const set = (name: keyof typeof EMPTY) => (event: { target: { value: string } }) =>
    setForm((current) => ({ ...current, [name]: event.target.value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!canSubmit) return;
    setError(null);
    setFieldErrors({});
    // Required: the account is confirmed, and alerts are reported, by e-mail.
    const problems: Record<string, Message> = {};
    if (!form.email.trim()) problems.email = { key: 'errors.emailRequired' };
    if (form.password1 !== form.password2) problems.password2 = { key: 'errors.passwordsDontMatch' };
    if (Object.keys(problems).length > 0) {
      setFieldErrors(problems);
      return;
    }
    setBusy(true);
    try {
      await register({ ...form, accept_terms: terms });
      setDone(true);
      timer.current = setTimeout(() => void navigate('/verify-email'), REGISTER_REDIRECT_MS);
    } catch (failure) {
      const mapped = await describeFailure(failure);
      const hasFields = Object.keys(mapped.fields).length > 0;
      setFieldErrors(mapped.fields);
      setError(mapped.message ?? (hasFields ? null : { key: 'register.failed' }));
    } finally {
      setBusy(false);
    }
  }

  const fieldError = (name: string) => (fieldErrors[name] ? text(fieldErrors[name]) : null);
  return (
    <section className="page narrow">
      <h1>{t('register.title')}</h1>
      <form onSubmit={submit} noValidate>
        {done && (
          <p className="form-success" role="status">
            {t('register.success')}
          </p>
        )}
        {error && (
          <p className="form-error" role="alert">
            {text(error)}
          </p>
        )}
        <Field
          label={t('register.username')}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          value={form.username}
          onChange={set('username')}
          error={fieldError('username')}
          required
        />
        <Field
          label={t('register.email')}
          name="email"
          type="email"
          autoComplete="email"
          hint={t('register.emailHint')}
          value={form.email}
          onChange={set('email')}
          error={fieldError('email')}
          required
        />
        <Field
          label={t('register.password1')}
          name="password1"
          type="password"
          autoComplete="new-password"
          value={form.password1}
          onChange={set('password1')}
          error={fieldError('password1')}
          aria-describedby="password-checklist"
          required
        />
        <PasswordChecklist password={form.password1} id="password-checklist" />
        <Field
          label={t('register.password2')}
          name="password2"
          type="password"
          autoComplete="new-password"
          value={form.password2}
          onChange={set('password2')}
          error={fieldError('password2')}
          required
        />
        <div className="check">
          <input
            id="accept-terms"
            type="checkbox"
            checked={terms}
            onChange={(event) => setTerms(event.target.checked)}
          />
          <label htmlFor="accept-terms">
            {t('register.acceptBefore')} <Link to="/legal">{t('register.terms')}</Link> {t('register.and')}{' '}
            <Link to="/privacy">{t('register.privacy')}</Link>
          </label>
        </div>
        {fieldError('accept_terms') && <p className="field-error">{fieldError('accept_terms')}</p>}
        <button type="submit" className="button primary wide" disabled={!canSubmit}>
          {busy ? t('register.submitting') : t('register.submit')}
        </button>
      </form>
      <p>
        {t('register.haveAccount')} <Link to="/login">{t('register.login')}</Link>
      </p>
      <p>
        <Link to="/resend-verification">{t('register.resendLink')}</Link>
      </p>
    </section>
  );
}
