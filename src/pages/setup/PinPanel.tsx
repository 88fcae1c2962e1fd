import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { failureOf } from '../../api/client';
import { updateMe } from '../../api/endpoints';
import { type Message, mapErrorData } from '../../api/errors';
import type { User } from '../../api/types';
import { Field } from '../../components/Field';
import { useMessageText } from '../../lib/message';
import { useStore } from '../../store';

type PinField = 'checkin_pin' | 'duress_pin';

/** The texts of each PIN's form, by key. */
const TEXTS = {
  checkin_pin: {
    label: 'checkins.pinLabel',
    hint: 'checkins.pinHint',
    save: 'checkins.savePin',
    clear: 'checkins.clearPin',
    saved: 'checkins.pinSaved',
    cleared: 'checkins.pinCleared',
  },
  duress_pin: {
    label: 'checkins.duressLabel',
    hint: 'checkins.duressHint',
    save: 'checkins.saveDuress',
    clear: 'checkins.clearDuress',
    saved: 'checkins.duressSaved',
    cleared: 'checkins.duressCleared',
  },
} as const;

/**
 * One PIN: whether it is set (the server never gives it back), a new one, or clearing it. The
 * server checks the digits and that the two differ, so its refusal is what shows.
 */
function PinForm({ field, isSet }: { field: PinField; isSet: boolean }) {
  const { t } = useTranslation();
  const text = useMessageText();
  const setUser = useStore((state) => state.setUser);
  const pushToast = useStore((state) => state.pushToast);
  const [pin, setPin] = useState('');
  const [error, setError] = useState<Message | null>(null);
  const [busy, setBusy] = useState(false);
  const texts = TEXTS[field];

  async function send(value: string | null) {
    setBusy(true);
    setError(null);
    try {
      setUser(await updateMe({ [field]: value }));
      setPin('');
      pushToast('success', { key: value === null ? texts.cleared : texts.saved });
    } catch (failure) {
      const { status, data } = await failureOf(failure);
      const mapped = status === 400 ? mapErrorData(data) : null;
      const found = mapped?.fields[field] ?? null;
      setError(found);
      if (!found) pushToast('error', { key: 'checkins.pinFailed' });
    } finally {
      setBusy(false);
    }
  }

  function save(event: FormEvent) {
    event.preventDefault();
    void send(pin);
  }

  return (
    <form className="pin-form" onSubmit={save} noValidate>
      <Field
        label={t(texts.label)}
        hint={t(texts.hint)}
        type="password"
        inputMode="numeric"
        autoComplete="off"
        maxLength={8}
        value={pin}
        error={error ? text(error) : null}
        onChange={(event) => setPin(event.target.value.trim())}
      />
      <p className="pin-state">
        {t(texts.label)}: <strong>{isSet ? t('checkins.isSet') : t('checkins.notSet')}</strong>
      </p>
      <div className="actions">
        <button type="submit" className="button primary" disabled={busy || !pin}>
          {t(texts.save)}
        </button>
        {isSet && (
          <button type="button" className="button secondary" disabled={busy} onClick={() => void send(null)}>
            {t(texts.clear)}
          </button>
        )}
      </div>
    </form>
  );
}

/** The check-in PIN and the duress PIN, with what each does. */
export function PinPanel({ user }: { user: User }) {
  const { t } = useTranslation();
  return (
    <section className="panel pins" aria-labelledby="pins-title">
      <h2 id="pins-title">{t('checkins.pinsTitle')}</h2>
      <p>{t('checkins.pinsIntro')}</p>
      <PinForm field="checkin_pin" isSet={user.has_checkin_pin} />
      <PinForm field="duress_pin" isSet={user.has_duress_pin} />
      <p className="note">{t('checkins.wrongPins')}</p>
    </section>
  );
}
