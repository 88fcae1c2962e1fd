import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Message } from '../../api/errors';
import { Field } from '../../components/Field';
import { useMessageText } from '../../lib/message';

interface EmailFormProps {
  submitLabel: string;
  /** Sends the trimmed address (called only when it is not empty). */
  onSubmit(email: string): Promise<void>;
  error: Message | null;
  success: Message | null;
  busy: boolean;
}

/** The one-field e-mail form of the reset and resend pages; the e-mail is required. */
export function EmailForm({ submitLabel, onSubmit, error, success, busy }: EmailFormProps) {
  const { t } = useTranslation();
  const text = useMessageText();
  const [email, setEmail] = useState('');
  const [missing, setMissing] = useState(false);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!email.trim()) {
      setMissing(true);
      return;
    }
    setMissing(false);
    void onSubmit(email.trim());
  }

  return (
    <form onSubmit={submit} noValidate>
      {success && (
        <p className="form-success" role="status">
          {text(success)}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {text(error)}
        </p>
      )}
      <Field
        label={t('fields.email')}
        name="email"
        type="email"
        autoComplete="email"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={missing ? t('reset.email_required') : null}
        required
      />
      <button type="submit" className="button primary wide" disabled={busy}>
        {submitLabel}
      </button>
    </form>
  );
}
