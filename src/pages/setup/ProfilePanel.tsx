import { type FormEvent, useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { browserTimeZone, DISPLAY_NAME_MAX, validateDisplayName } from '../../../common/profile-rules';
import { failureOf } from '../../api/client';
import { updateMe } from '../../api/endpoints';
import { type Message, mapErrorData } from '../../api/errors';
import type { User } from '../../api/types';
import { Field } from '../../components/Field';
import { useMessageText } from '../../lib/message';
import { namedTimeZones } from '../../lib/time-zones';
import { useStore } from '../../store';

/** Every IANA zone the browser knows, with the stored and the browser's own among them (shown by name, not by IANA id). */
function zoneChoices(...always: (string | null)[]): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set([...known, ...always.filter((z): z is string => Boolean(z)), 'UTC'])];
}

/** What contacts see about the owner: the name in the SMS and on their pages, and the zone of the SMS times. */
export function ProfilePanel({ user }: { user: User }) {
  const { t, i18n } = useTranslation();
  const text = useMessageText();
  const zoneId = useId();
  const setUser = useStore((state) => state.setUser);
  const pushToast = useStore((state) => state.pushToast);
  const [name, setName] = useState(user.display_name ?? '');
  const [zone, setZone] = useState(user.time_zone ?? browserTimeZone() ?? 'UTC');
  const [errors, setErrors] = useState<{ display_name?: Message; time_zone?: Message }>({});
  const [busy, setBusy] = useState(false);
  const zones = useMemo(
    () => namedTimeZones(zoneChoices(user.time_zone, browserTimeZone()), i18n.language),
    [user.time_zone, i18n.language],
  );

  async function save(event: FormEvent) {
    event.preventDefault();
    const nameError = validateDisplayName(name);
    setErrors(nameError ? { display_name: { key: nameError } } : {});
    if (nameError) return;
    setBusy(true);
    try {
      setUser(await updateMe({ display_name: name.trim() || null, time_zone: zone }));
      pushToast('success', { key: 'setup.profileSaved' });
    } catch (error) {
      const { status, data } = await failureOf(error);
      const fields: Record<string, Message> = status === 400 ? mapErrorData(data).fields : {};
      const found: typeof errors = {};
      if (fields.display_name) found.display_name = fields.display_name;
      if (fields.time_zone) found.time_zone = fields.time_zone;
      setErrors(found);
      if (!found.display_name && !found.time_zone) pushToast('error', { key: 'setup.profileFailed' });
    } finally {
      setBusy(false);
    }
  }

  const shown = name.trim() || user.username;
  return (
    <section className="panel profile" aria-labelledby="profile-title">
      <h2 id="profile-title">{t('setup.profileTitle')}</h2>
      <form onSubmit={(event) => void save(event)} noValidate>
        <Field
          label={t('setup.displayName')}
          hint={t('setup.displayNameHint', { name: shown })}
          value={name}
          maxLength={DISPLAY_NAME_MAX}
          autoComplete="name"
          error={errors.display_name ? text(errors.display_name) : null}
          onChange={(event) => setName(event.target.value)}
        />
        <div className="field">
          <label htmlFor={zoneId}>{t('setup.timeZone')}</label>
          <select
            id={zoneId}
            value={zone}
            aria-describedby={`${zoneId}-hint`}
            onChange={(event) => setZone(event.target.value)}
          >
            {zones.map(({ zone, name }) => (
              <option key={zone} value={zone}>
                {name}
              </option>
            ))}
          </select>
          <p id={`${zoneId}-hint`} className="hint">
            {t('setup.timeZoneHint')}
          </p>
          {errors.time_zone && <p className="field-error">{text(errors.time_zone)}</p>}
        </div>
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? t('setup.saving') : t('setup.saveProfile')}
        </button>
      </form>
    </section>
  );
}
