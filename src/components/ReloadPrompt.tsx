import { useRegisterSW } from 'virtual:pwa-register/react';
import { useTranslation } from 'react-i18next';
import { requestReplay } from '../alert/sw-client';
import i18n from '../i18n';

// The prompt's own strings, added to the app's translations here so the component stands alone.
i18n.addResourceBundle('pt', 'translation', {
  pwa: { newVersion: 'Há uma nova versão do Alerta.', reload: 'Atualizar', later: 'Mais tarde' },
});
i18n.addResourceBundle('en', 'translation', {
  pwa: { newVersion: 'A new version of Alerta is available.', reload: 'Reload', later: 'Later' },
});

/** Registers the service worker and, when a new version waits, offers to reload into it. */
export function ReloadPrompt() {
  const { t } = useTranslation();
  const {
    needRefresh: [needRefresh, setNeedRefresh],
    updateServiceWorker,
  } = useRegisterSW({
    immediate: true,
    // An alert queued in a tab since closed goes as soon as any page of the app opens.
    onRegisteredSW: () => requestReplay(),
  });
  if (!needRefresh) return null;
  return (
    <div className="toast reload-prompt" role="status">
      <span>{t('pwa.newVersion')}</span>
      <button type="button" className="button" onClick={() => void updateServiceWorker(true)}>
        {t('pwa.reload')}
      </button>
      <button type="button" className="button secondary" onClick={() => setNeedRefresh(false)}>
        {t('pwa.later')}
      </button>
    </div>
  );
}
