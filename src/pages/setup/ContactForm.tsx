import { type FormEvent, useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import PhoneInput, { type Value } from 'react-phone-number-input';
import flags from 'react-phone-number-input/flags';
import 'react-phone-number-input/style.css';
import { contactErrorBody, parseContact } from '../../../common/contact-rules';
import { failureOf } from '../../api/client';
import { addContact } from '../../api/endpoints';
import { mapContactError, mapErrorData } from '../../api/errors';
import type { Contact, Profile } from '../../api/types';
import { Field } from '../../components/Field';
import { StatusForm } from '../../components/StatusForm';
import { countryNames } from '../../lib/countries';
import { useForm } from '../../lib/form';
import { intlLocale } from '../../lib/locale';
import { CountrySelect } from './CountrySelect';

const PHONE_PLACEHOLDER = '1 (702) 123-4567';

/** Whether an add answer is a usable contact (SPEC §5: it must carry id and phone_number). */
const isContact = (data: unknown): data is Contact =>
  typeof data === 'object' && data !== null && 'id' in data && 'phone_number' in data;

interface ContactFormProps {
  contacts: Contact[];
  profile: Profile | undefined;
  onAdded(contact: Contact): void;
}

/** The add-contact form: name, phone (default country Portugal) and relationship, checked with the server's rules. */
export function ContactForm({ contacts, profile, onAdded }: ContactFormProps) {
  const { t, i18n } = useTranslation();
  const phoneId = useId();
  const { values, field, fieldError, busy, setBusy, error, setError, showFailure, clearErrors, reset } = useForm({
    name: '',
    relationship: '',
  });
  const [phone, setPhone] = useState<Value | undefined>();
  // Country names from Intl in the person's language, sorted in its order.
  const labels = useMemo(
    () => ({ ...countryNames(i18n.language), ZZ: t('setup.international'), country: t('setup.country') }),
    [i18n.language, t],
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    clearErrors();
    const parsed = parseContact(
      { ...values, phone_number: phone ?? '' },
      contacts.map((contact) => contact.phone_number),
    );
    if (!parsed.ok) {
      // The same problems the server would answer, said the same way.
      const { fields } = mapErrorData(contactErrorBody(parsed.errors));
      showFailure({ message: { key: 'setup.fix_errors' }, fields });
      return;
    }
    if (!profile?.has_premium) {
      setError({ key: 'setup.premium_required_to_add' });
      return;
    }
    setBusy(true);
    try {
      const created = await addContact(parsed.contact);
      if (!isContact(created)) {
        setError({ key: 'setup.contact_creation_failed' });
        return;
      }
      onAdded(created);
      reset();
      setPhone(undefined);
    } catch (failure) {
      const { status, data } = await failureOf(failure);
      const mapped = mapContactError(status, data);
      showFailure({ ...mapped, message: mapped.message ?? { key: 'setup.fix_errors' } });
    } finally {
      setBusy(false);
    }
  }

  const phoneError = fieldError('phone_number');
  return (
    <StatusForm
      className="contact-form"
      onSubmit={submit}
      aria-labelledby="add-contact-title"
      heading={<h2 id="add-contact-title">{t('setup.addTitle')}</h2>}
      error={error}
      submitLabel={busy ? t('setup.adding') : t('setup.add')}
      disabled={busy}
    >
      <Field {...field('name', t('setup.name'))} autoComplete="off" required />
      <div className="field">
        <label htmlFor={phoneId}>{t('setup.phone')}</label>
        <PhoneInput
          id={phoneId}
          name="phone_number"
          defaultCountry="PT"
          flags={flags}
          labels={labels}
          locales={intlLocale(i18n.language)}
          countrySelectComponent={CountrySelect}
          placeholder={PHONE_PLACEHOLDER}
          value={phone}
          onChange={setPhone}
          aria-invalid={phoneError ? true : undefined}
          aria-describedby={phoneError ? `${phoneId}-error` : undefined}
        />
        {phoneError && (
          <p id={`${phoneId}-error`} className="field-error">
            {phoneError}
          </p>
        )}
      </div>
      <Field {...field('relationship', t('setup.relationship'))} autoComplete="off" />
    </StatusForm>
  );
}
