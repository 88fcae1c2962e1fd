import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import PhoneInput, { type Value } from 'react-phone-number-input';
import flags from 'react-phone-number-input/flags';
import en from 'react-phone-number-input/locale/en.json';
import pt from 'react-phone-number-input/locale/pt.json';
import 'react-phone-number-input/style.css';
import { parseContact } from '../../../common/contact-rules';
import { failureOf } from '../../api/client';
import { addContact } from '../../api/endpoints';
import { type Message, mapContactError } from '../../api/errors';
import type { Contact, Profile } from '../../api/types';
import { Field } from '../../components/Field';
import { useMessageText } from '../../lib/message';
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
  const text = useMessageText();
  const phoneId = useId();
  const [name, setName] = useState('');
  const [phone, setPhone] = useState<Value | undefined>();
  const [relationship, setRelationship] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message | null>(null);
  const [fields, setFields] = useState<Record<string, Message>>({});

  async function submit(event: FormEvent) {
    event.preventDefault();
    setMessage(null);
    setFields({});
    const parsed = parseContact(
      { name, phone_number: phone ?? '', relationship },
      contacts.map((contact) => contact.phone_number),
    );
    if (!parsed.ok) {
      const found: Record<string, Message> = {};
      for (const [field, error] of Object.entries(parsed.errors)) found[field] = { key: error.key };
      setFields(found);
      setMessage({ key: 'setup.fix_errors' });
      return;
    }
    if (!profile?.has_premium) {
      setMessage({ key: 'setup.premium_required_to_add' });
      return;
    }
    setBusy(true);
    try {
      const created = await addContact(parsed.contact);
      if (!isContact(created)) {
        setMessage({ key: 'setup.contact_creation_failed' });
        return;
      }
      onAdded(created);
      setName('');
      setPhone(undefined);
      setRelationship('');
    } catch (failure) {
      const { status, data } = await failureOf(failure);
      const mapped = mapContactError(status, data);
      setFields(mapped.fields);
      setMessage(mapped.message ?? { key: 'setup.fix_errors' });
    } finally {
      setBusy(false);
    }
  }

  const phoneError = fields.phone_number ? text(fields.phone_number) : null;
  return (
    <form className="contact-form" onSubmit={submit} noValidate aria-labelledby="add-contact-title">
      <h2 id="add-contact-title">{t('setup.addTitle')}</h2>
      {message && (
        <p className="form-error" role="alert">
          {text(message)}
        </p>
      )}
      <Field
        label={t('setup.name')}
        name="name"
        autoComplete="off"
        value={name}
        onChange={(event) => setName(event.target.value)}
        error={fields.name && text(fields.name)}
        required
      />
      <div className="field">
        <label htmlFor={phoneId}>{t('setup.phone')}</label>
        <PhoneInput
          id={phoneId}
          name="phone_number"
          defaultCountry="PT"
          flags={flags}
          labels={i18n.language === 'en' ? en : pt}
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
      <Field
        label={t('setup.relationship')}
        name="relationship"
        autoComplete="off"
        value={relationship}
        onChange={(event) => setRelationship(event.target.value)}
        error={fields.relationship && text(fields.relationship)}
      />
      <button type="submit" className="button primary wide" disabled={busy}>
        {busy ? t('setup.adding') : t('setup.add')}
      </button>
    </form>
  );
}
