import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { passwordAcceptable, passwordChecks } from '../../../common/password-rules';
import { describeFailure } from '../../api/client';
import { changePassword } from '../../api/endpoints';
import { Field } from '../../components/Field';
import { PasswordFields, useRefusedPasswords } from '../../components/PasswordFields';
import { StatusForm } from '../../components/StatusForm';
import { useForm } from '../../lib/form';
import { useStore } from '../../store';

const EMPTY = { current_password: '', new_password1: '', new_password2: '' };

/**
 * Setup's password: the current one, then the new one with the registration page's live
 * checklist and its repeat. The server ends every other login and device; this one stays signed
 * in, so the form only empties itself and says so.
 */
export function PasswordSection() {
  const { t } = useTranslation();
  const username = useStore((state) => state.user?.username ?? '');
  const { values, field, busy, setBusy, error, setError, setFieldErrors, showFailure, clearErrors, reset } =
    useForm(EMPTY);
  const [done, setDone] = useState(false);
  const { refused, learn } = useRefusedPasswords();
  const acceptable = passwordAcceptable(passwordChecks(values.new_password1, refused));

  async function submit(event: FormEvent) {
    event.preventDefault();
    clearErrors();
    setDone(false);
    const { current_password, new_password1, new_password2 } = values;
    if (!current_password || !new_password1 || !new_password2) return setError({ key: 'password.empty' });
    if (new_password1 !== new_password2) return setFieldErrors({ new_password2: { key: 'errors.passwordsDontMatch' } });
    setBusy(true);
    try {
      await changePassword(values);
      reset();
      setDone(true);
    } catch (failure) {
      const failed = await describeFailure(failure);
      learn(new_password1, [failed.message, failed.fields.new_password1]);
      showFailure(failed, { key: 'password.failed' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel password" aria-labelledby="password-title">
      <h2 id="password-title">{t('password.title')}</h2>
      <p className="note">{t('password.intro')}</p>
      <StatusForm
        onSubmit={submit}
        success={done ? { key: 'password.changed' } : null}
        error={error}
        submitLabel={busy ? t('password.submitting') : t('password.submit')}
        disabled={busy || !acceptable}
      >
        {/* For password managers: which account this password belongs to. */}
        <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
        <Field
          type="password"
          autoComplete="current-password"
          {...field('current_password', t('password.current'))}
          required
        />
        <PasswordFields
          checklistId="password-change-checklist"
          refused={refused}
          first={field('new_password1', t('password.new'))}
          second={field('new_password2', t('password.repeat'))}
        />
      </StatusForm>
    </section>
  );
}
