import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { updateMe } from '../../api/endpoints';
import type { User } from '../../api/types';
import { useStore } from '../../store';
import { loadUser } from '../../store/actions';

/** The waits an owner may choose (seconds); 0: never phone. Any other value the server holds is shown too. */
const CHOICES = [60, 120, 300, 600, 900, 1800, 0] as const;

/** How long a real alert nobody answers waits before the contacts are phoned. */
export function EscalationField({ user }: { user: User }) {
  const { t } = useTranslation();
  const pushToast = useStore((state) => state.pushToast);
  const id = useId();
  const [busy, setBusy] = useState(false);
  const current = user.escalation_after_seconds;
  const choices: number[] = CHOICES.includes(current as (typeof CHOICES)[number])
    ? [...CHOICES]
    : [current, ...CHOICES];

  async function save(seconds: number) {
    setBusy(true);
    try {
      await updateMe({ escalation_after_seconds: seconds });
      await loadUser();
      pushToast('success', { key: 'setup.escalationSaved' });
    } catch {
      pushToast('error', { key: 'setup.escalationFailed' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="field">
      <label htmlFor={id}>{t('setup.escalation')}</label>
      <select id={id} value={current} disabled={busy} onChange={(event) => void save(Number(event.target.value))}>
        {choices.map((seconds) => (
          <option key={seconds} value={seconds}>
            {seconds === 0
              ? t('setup.escalationNever')
              : seconds % 60 === 0
                ? t('setup.escalationMinutes', { count: seconds / 60 })
                : t('setup.escalationSeconds', { count: seconds })}
          </option>
        ))}
      </select>
      <p className="hint">{t('setup.escalationHint')}</p>
    </div>
  );
}
