import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Contact, Plan } from '../../api/types';

interface ContactListProps {
  contacts: Contact[];
  limit: number | undefined;
  plan: Plan | null;
  onRemove(contact: Contact): Promise<void>;
  onAlertFirst(contact: Contact): Promise<void>;
}

/**
 * The current contacts, each with a remove button. Beyond the plan's limit (after a downgrade)
 * contacts are marked "not alerted on this plan", each with a button to alert it instead.
 */
export function ContactList({ contacts, limit, plan, onRemove, onAlertFirst }: ContactListProps) {
  const { t } = useTranslation();
  const [removing, setRemoving] = useState<string | null>(null);
  const overLimit = limit !== undefined && contacts.length > limit;
  return (
    <section className="contacts" aria-labelledby="contacts-title">
      <h2 id="contacts-title">{t('setup.contactsTitle')}</h2>
      {limit && !overLimit ? <p className="note">{t('setup.count', { used: contacts.length, limit })}</p> : null}
      {overLimit && (
        <p className="note over-limit" role="status">
          {t('setup.overLimit', { limit, others: contacts.length - limit, plan: t(`plans.${plan ?? 'basic'}`) })}
        </p>
      )}
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
                {contact.alerted === false && <span className="tag muted">{t('setup.notAlerted')}</span>}
              </div>
              {contact.alerted === false && (
                <button
                  type="button"
                  className="button secondary"
                  aria-label={t('setup.alertFirstNamed', { name: contact.name })}
                  disabled={removing !== null}
                  onClick={() => void onAlertFirst(contact)}
                >
                  {t('setup.alertFirst')}
                </button>
              )}
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
