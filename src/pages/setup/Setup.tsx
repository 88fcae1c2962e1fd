import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { failureOf } from '../../api/client';
import { alertFirst, fetchContacts, inviteContact, removeContact } from '../../api/endpoints';
import { messageForCode } from '../../api/errors';
import type { Contact } from '../../api/types';
import { LoginOrRegister } from '../../components/ActionLinks';
import { useStore } from '../../store';
import { AccountActions } from './AccountActions';
import { ContactForm } from './ContactForm';
import { ContactList } from './ContactList';
import { DailyCheckin } from './DailyCheckin';
import { Devices } from './Devices';
import { EmergencyPanel } from './EmergencyPanel';
import { Guide } from './Guide';
import { PasswordSection } from './PasswordSection';
import { PinPanel } from './PinPanel';
import { ProfilePanel } from './ProfilePanel';

/** The contacts setup screen: guide, add form, list, Emergency Buttons, subscription and account. */
export default function Setup() {
  const { t } = useTranslation();
  const user = useStore((state) => state.user);
  const access = useStore((state) => state.access);
  const pushToast = useStore((state) => state.pushToast);
  const [contacts, setContacts] = useState<Contact[]>([]);
  const [loading, setLoading] = useState(true);
  const [fetchError, setFetchError] = useState(false);

  const load = useCallback(async () => {
    setLoading(true);
    setFetchError(false);
    try {
      setContacts(await fetchContacts());
    } catch {
      setFetchError(true);
    } finally {
      setLoading(false);
    }
  }, []);

  // Contacts load once the session is authenticated.
  const userId = user?.id;
  useEffect(() => {
    if (userId) void load();
  }, [userId, load]);

  async function remove(contact: Contact) {
    try {
      await removeContact(contact.id);
      setContacts((current) => current.filter((item) => item.id !== contact.id));
    } catch (error) {
      console.error('Removing the contact failed', error);
      pushToast('error', { key: 'setup.error_delete' });
    }
  }

  async function invite(contact: Contact) {
    try {
      const updated = await inviteContact(contact.id);
      setContacts((current) => current.map((item) => (item.id === updated.id ? updated : item)));
      pushToast('success', { key: 'setup.invitationSent' });
    } catch (failure) {
      const { data } = await failureOf(failure);
      pushToast('error', messageForCode(data) ?? { key: 'setup.invitationFailed' });
    }
  }

  async function chooseAlerted(contact: Contact) {
    try {
      setContacts(await alertFirst(contact.id));
    } catch (error) {
      console.error('Choosing the alerted contacts failed', error);
      pushToast('error', { key: 'setup.alertFirstFailed' });
    }
  }

  if (!access) {
    return (
      <section className="page narrow">
        <h1>{t('setup.title')}</h1>
        <p>{t('setup.loginRequired')}</p>
        <LoginOrRegister />
      </section>
    );
  }
  if (!user) {
    return (
      <section className="page">
        <p role="status">{t('common.loading')}</p>
      </section>
    );
  }

  const profile = user.profile;
  return (
    <section className="page setup">
      <h1>{t('setup.title')}</h1>
      <Guide />
      {!profile.has_premium && (
        <div className="banner inactive" role="status">
          <p>{t('setup.needPlan')}</p>
          <Link className="button primary" to="/pricing">
            {t('home.choosePlan')}
          </Link>
        </div>
      )}
      <ContactForm
        contacts={contacts}
        profile={profile}
        onAdded={(contact) => setContacts((list) => [...list, contact])}
      />
      {fetchError ? (
        // Unknown, not empty: a count or "no contacts yet" here would say the contacts are gone.
        <section className="contacts" aria-labelledby="contacts-title">
          <h2 id="contacts-title">{t('setup.contactsTitle')}</h2>
          <p className="form-error" role="alert">
            {t('setup.error_fetch')}
          </p>
          <button type="button" className="button secondary" disabled={loading} onClick={() => void load()}>
            {t('home.retry')}
          </button>
        </section>
      ) : loading && contacts.length === 0 ? (
        <p role="status">{t('common.loading')}</p>
      ) : (
        <ContactList
          contacts={contacts}
          limit={profile.contact_limit || undefined}
          plan={profile.plan}
          onRemove={remove}
          onAlertFirst={chooseAlerted}
          onInvite={invite}
        />
      )}
      <ProfilePanel user={user} />
      <EmergencyPanel user={user} />
      <PinPanel user={user} />
      <DailyCheckin
        contacts={contacts}
        limit={profile.contact_limit || undefined}
        contactsKnown={!fetchError && !(loading && contacts.length === 0)}
      />
      <Devices />
      <PasswordSection />
      <AccountActions />
    </section>
  );
}
