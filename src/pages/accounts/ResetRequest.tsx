import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { describeFailure } from '../../api/client';
import { requestPasswordReset } from '../../api/endpoints';
import type { Message } from '../../api/errors';
import { EmailForm } from './EmailForm';

/** Asks for a reset link by e-mail; the answer is the same whether or not the address exists. */
export function ResetRequest() {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Message | null>(null);
  const [success, setSuccess] = useState<Message | null>(null);

  async function send(email: string) {
    setBusy(true);
    setError(null);
    setSuccess(null);
    try {
      await requestPasswordReset(email);
      setSuccess({ key: 'reset.sent' });
    } catch (failure) {
      const mapped = await describeFailure(failure);
      setError(mapped.message ?? Object.values(mapped.fields)[0] ?? { key: 'reset.send_error' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="page narrow">
      <h1>{t('reset.title')}</h1>
      <p>{t('reset.intro')}</p>
      <EmailForm submitLabel={t('reset.submit')} onSubmit={send} error={error} success={success} busy={busy} />
      <p>
        <Link to="/login">{t('reset.backToLogin')}</Link>
      </p>
    </section>
  );
}
