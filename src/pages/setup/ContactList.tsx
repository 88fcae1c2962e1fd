import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Contact } from '../../api/types';

interface ContactListProps {
  contacts: Contact[];
  limit: number | undefined;
  onRemove(contact: Contact): Promise<void>;
}

/** The current contacts, each with a remove button. */
export function ContactList({ contacts, limit, onRemove }: ContactListProps) {
  const { t } = useTranslation();
  const [removing, setRemoving] = useState<string | null>(null);
  return (
    <section className="contacts" aria-labelledby="contacts-title">
      <h2 id="contacts-title">{t('setup.contactsTitle')}</h2>
      {limit ? <p className="note">{t('setup.count', { used: contacts.length, limit })}</p> : null}
      {contacts.length === 0 ? (
        <p>{t('setup.noContacts')}</p>
      ) : (
        <ul className="contact-list">
          {contacts.map((contact) => (
            <li key={contact.id}>
              <div>
                <strong>{contact.name}</strong>
                <span className="phone">{contact.phone_number}</span>
                {contact.relationship && <span className="note">{contact.relationship}</span>}
              </div>
              <button
                type="button"
                className="button secondary"
                aria-label={t('setup.removeNamed', { name: contact.name })}
                disabled={removing === contact.id}
                onClick={async () => {
                  setRemoving(contact.id);
                  await onRemove(contact);
                  setRemoving(null);
                }}
              >
                {t('setup.remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
