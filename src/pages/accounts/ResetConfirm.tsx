import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { RESET_REDIRECT_MS } from '../../../common/constants';
import { failureOf } from '../../api/client';
import { confirmPasswordReset } from '../../api/endpoints';
import { type Message, mapApiError } from '../../api/errors';
import { Field } from '../../components/Field';
import { PasswordChecklist } from '../../components/PasswordChecklist';
import { useMessageText } from '../../lib/message';

/** Sets a new password from the e-mailed link; success goes to /login after 2.5 s. */
export function ResetConfirm() {
  const { t } = useTranslation();
  const text = useMessageText();
  const navigate = useNavigate();
  const { uid = '', token = '' } = useParams();
  const [password1, setPassword1] = useState('');
  const [password2, setPassword2] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<Message | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!password1 || !password2) return setError({ key: 'reset.empty_fields' });
    if (password1 !== password2) return setError({ key: 'reset.password_mismatch' });
    setBusy(true);
    setError(null);
    try {
      await confirmPasswordReset({ uid, token, new_password1: password1, new_password2: password2 });
      setDone(true);
      timer.current = setTimeout(() => void navigate('/login'), RESET_REDIRECT_MS);
    } catch (failure) {
      const { status, data } = await failureOf(failure);
      const mapped = mapApiError(status, data);
      const first = mapped.message ?? Object.values(mapped.fields)[0] ?? null;
      setError(first && !('key' in first && first.key === 'errors.unknown') ? first : { key: 'reset.confirm_error' });
      setBusy(false);
    }
  }

  return (
    <section className="page narrow">
      <h1>{t('reset.confirmTitle')}</h1>
      <form onSubmit={submit} noValidate>
        {done && (
          <p className="form-success" role="status">
            {t('reset.success')}
          </p>
        )}
        {error && (
          <p className="form-error" role="alert">
            {text(error)}
          </p>
        )}
        <Field
          label={t('reset.newPassword')}
          name="new_password1"
          type="password"
          autoComplete="new-password"
          value={password1}
          onChange={(event) => setPassword1(event.target.value)}
          aria-describedby="reset-checklist"
          required
        />
        <PasswordChecklist password={password1} id="reset-checklist" />
        <Field
          label={t('reset.repeatPassword')}
          name="new_password2"
          type="password"
          autoComplete="new-password"
          value={password2}
          onChange={(event) => setPassword2(event.target.value)}
          required
        />
        <button type="submit" className="button primary wide" disabled={busy || done}>
          {t('reset.confirmSubmit')}
        </button>
      </form>
      <p>
        <Link to="/reset-password/">{t('reset.requestAgain')}</Link>
      </p>
    </section>
  );
}
