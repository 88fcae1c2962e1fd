import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { RESET_REDIRECT_MS } from '../../../common/constants';
import { failureOf } from '../../api/client';
import { confirmPasswordReset } from '../../api/endpoints';
import { mapApiError } from '../../api/errors';
import { PasswordFields, useRefusedPasswords } from '../../components/PasswordFields';
import { StatusForm } from '../../components/StatusForm';
import { useForm } from '../../lib/form';

/** Sets a new password from the e-mailed link; success goes to /login after 2.5 s. */
export function ResetConfirm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { uid = '', token = '' } = useParams();
  const { values, field, busy, setBusy, error, setError } = useForm({ new_password1: '', new_password2: '' });
  const [done, setDone] = useState(false);
  const { refused, learn } = useRefusedPasswords();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const { new_password1, new_password2 } = values;
    if (!new_password1 || !new_password2) return setError({ key: 'reset.empty_fields' });
    if (new_password1 !== new_password2) return setError({ key: 'reset.password_mismatch' });
    setBusy(true);
    setError(null);
    try {
      await confirmPasswordReset({ uid, token, new_password1, new_password2 });
      setDone(true);
      timer.current = setTimeout(() => void navigate('/login'), RESET_REDIRECT_MS);
    } catch (failure) {
      const { status, data } = await failureOf(failure);
      const mapped = mapApiError(status, data);
      const first = mapped.message ?? Object.values(mapped.fields)[0] ?? null;
      learn(new_password1, [mapped.message, ...Object.values(mapped.fields)]);
      setError(first && !('key' in first && first.key === 'errors.unknown') ? first : { key: 'reset.confirm_error' });
      setBusy(false);
    }
  }

  return (
    <section className="page narrow">
      <h1>{t('reset.confirmTitle')}</h1>
      <StatusForm
        onSubmit={submit}
        success={done ? { key: 'reset.success' } : null}
        error={error}
        submitLabel={t('reset.confirmSubmit')}
        disabled={busy || done}
      >
        <PasswordFields
          checklistId="reset-checklist"
          refused={refused}
          first={field('new_password1', t('reset.newPassword'))}
          second={field('new_password2', t('reset.repeatPassword'))}
        />
      </StatusForm>
      <p>
        <Link to="/reset-password/">{t('reset.requestAgain')}</Link>
      </p>
    </section>
  );
}
