import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { REGISTER_REDIRECT_MS } from '../../../common/constants';
import { passwordAcceptable, passwordChecks } from '../../../common/password-rules';
import { describeFailure } from '../../api/client';
import { register } from '../../api/endpoints';
import type { Message } from '../../api/errors';
import { Field } from '../../components/Field';
import { PasswordFields, useRefusedPasswords } from '../../components/PasswordFields';
import { StatusForm } from '../../components/StatusForm';
import { useForm } from '../../lib/form';

const EMPTY = { username: '', email: '', password1: '', password2: '' };

/** Registration: live password checklist; submit only with terms ticked, checklist passing and nothing in flight. */
export function Register() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { values, field, fieldError, busy, setBusy, error, setFieldErrors, showFailure, clearErrors } = useForm(EMPTY);
  const [terms, setTerms] = useState(false);
  const [done, setDone] = useState(false);
  const { refused, learn } = useRefusedPasswords();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const canSubmit = terms && passwordAcceptable(passwordChecks(values.password1, refused)) && !busy && !done;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!canSubmit) return;
    clearErrors();
    // Required: the account is confirmed, and alerts are reported, by e-mail.
    const problems: Record<string, Message> = {};
    if (!values.email.trim()) problems.email = { key: 'errors.emailRequired' };
    if (values.password1 !== values.password2) problems.password2 = { key: 'errors.passwordsDontMatch' };
    if (Object.keys(problems).length > 0) {
      setFieldErrors(problems);
      return;
    }
    setBusy(true);
    try {
      await register({ ...values, accept_terms: terms });
      setDone(true);
      timer.current = setTimeout(() => void navigate('/verify-email'), REGISTER_REDIRECT_MS);
    } catch (failure) {
      const failed = await describeFailure(failure);
      learn(values.password1, [failed.message, failed.fields.password1, failed.fields.password2]);
      showFailure(failed, { key: 'register.failed' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="page narrow">
      <h1>{t('register.title')}</h1>
      <StatusForm
        onSubmit={submit}
        success={done ? { key: 'register.success' } : null}
        error={error}
        submitLabel={busy ? t('register.submitting') : t('register.submit')}
        disabled={!canSubmit}
      >
        <Field {...field('username', t('register.username'))} autoComplete="username" autoCapitalize="none" required />
        <Field
          {...field('email', t('register.email'))}
          type="email"
          autoComplete="email"
          hint={t('register.emailHint')}
          required
        />
        <PasswordFields
          checklistId="password-checklist"
          refused={refused}
          first={field('password1', t('register.password1'))}
          second={field('password2', t('register.password2'))}
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
      </StatusForm>
      <p>
        {t('register.haveAccount')} <Link to="/login">{t('register.login')}</Link>
      </p>
      <p>
        <Link to="/resend-verification">{t('register.resendLink')}</Link>
      </p>
    </section>
  );
}
