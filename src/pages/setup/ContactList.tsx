import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Contact, Plan } from '../../api/types';
import { dateOnly } from '../../lib/time';

interface ContactListProps {
  contacts: Contact[];
  limit: number | undefined;
  plan: Plan | null;
  onRemove(contact: Contact): Promise<void>;
  onAlertFirst(contact: Contact): Promise<void>;
  onInvite(contact: Contact): Promise<void>;
}

/** How each state of a contact's agreement is marked: a contact who gets no SMS stands out. */
const STATE_TAGS = {
  added: 'note',
  invited: 'note',
  confirmed: 'note',
  opted_out: 'tag muted',
} as const;

/**
 * Whether the invitation can go again now: never invited (or it could not go), or invited a week
 * ago or more; a confirmed or opted-out contact is not invited.
 */
const invitable = (contact: Contact) =>
  contact.state === 'added' ||
  (contact.state === 'invited' &&
    (contact.invite_again_at === null || Date.parse(contact.invite_again_at) <= Date.now()));

/**
 * The current contacts, each with a remove button. Beyond the plan's limit (after a downgrade)
 * contacts are marked "not alerted on this plan", each with a button to alert it instead. Each
 * says whether it was invited by SMS, confirmed (replied YES) or opted out (replied STOP: ask
 * them to reply START), with a button to invite again when that would work, or the date from
 * which it will.
 */
export function ContactList({ contacts, limit, plan, onRemove, onAlertFirst, onInvite }: ContactListProps) {
  const { t, i18n } = useTranslation();
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
                <span className={STATE_TAGS[contact.state]}>{t(`setup.contactState.${contact.state}`)}</span>
                {contact.state === 'opted_out' && <span className="note">{t('setup.askStart')}</span>}
              </div>
              {!invitable(contact) && contact.invite_again_at && (
                <span className="note">
                  {t('setup.inviteFrom', { date: dateOnly(contact.invite_again_at, i18n.language) })}
                </span>
              )}
              {invitable(contact) && (
                <button
                  type="button"
                  className="button secondary"
                  aria-label={t('setup.inviteNamed', { name: contact.name })}
                  onClick={() => void onInvite(contact)}
                >
                  {t('setup.invite')}
                </button>
              )}
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
