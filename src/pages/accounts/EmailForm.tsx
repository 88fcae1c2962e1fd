import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Message } from '../../api/errors';
import { Field } from '../../components/Field';
import { StatusForm } from '../../components/StatusForm';

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
    <StatusForm onSubmit={submit} success={success} error={error} submitLabel={submitLabel} disabled={busy}>
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
    </StatusForm>
  );
}
