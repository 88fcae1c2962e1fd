import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DELETE_ACCOUNT_REDIRECT_MS } from '../../../common/constants';
import { describeFailure } from '../../api/client';
import { deleteAccount, openPortal } from '../../api/endpoints';
import type { Message } from '../../api/errors';
import { Confirm } from '../../components/Confirm';
import { forgetDeviceKey } from '../../lib/device-key';
import { useMessageText } from '../../lib/message';
import { goTo, redirectTarget } from '../../lib/navigation';
import { useStore } from '../../store';

/** Manage subscription (the provider's portal) and, at the bottom, delete the account after confirmation. */
export function AccountActions() {
  const { t } = useTranslation();
  const text = useMessageText();
  const clearSession = useStore((state) => state.clearSession);
  const pushToast = useStore((state) => state.pushToast);
  const [portalBusy, setPortalBusy] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [error, setError] = useState<Message | null>(null);

  async function manage() {
    setPortalBusy(true);
    setError(null);
    try {
      const target = redirectTarget(await openPortal());
      if (!target) {
        setError({ key: 'setup.portalError' });
        setPortalBusy(false);
        return;
      }
      window.location.assign(target);
    } catch (failure) {
      setError((await describeFailure(failure)).message ?? { key: 'setup.portalError' });
      setPortalBusy(false);
    }
  }

  async function remove() {
    setDeleting(true);
    setError(null);
    try {
      await deleteAccount();
      forgetDeviceKey();
      clearSession();
      // Said on the page the person lands on: the toasts outlive the redirect.
      pushToast('success', { key: 'setup.accountDeleted' });
      // Logging out unmounts this panel, so the redirect must not belong to it.
      setTimeout(() => goTo('/register'), DELETE_ACCOUNT_REDIRECT_MS);
    } catch {
      setError({ key: 'setup.error_delete_account' });
      setDeleting(false);
    }
  }

  return (
    <section className="panel account" aria-labelledby="account-title">
      <h2 id="account-title">{t('setup.accountTitle')}</h2>
      {error && (
        <p className="form-error" role="alert">
          {text(error)}
        </p>
      )}
      <button type="button" className="button secondary" disabled={portalBusy} onClick={() => void manage()}>
        {t('setup.manageSubscription')}
      </button>
      <div className="danger-zone">
        <Confirm
          label={t('setup.deleteAccount')}
          question={t('setup.deleteConfirm')}
          confirmLabel={t('setup.deleteYes')}
          onConfirm={remove}
          busy={deleting}
          className="link-button danger-text"
        />
      </div>
    </section>
  );
}
