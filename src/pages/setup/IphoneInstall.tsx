import { useTranslation } from 'react-i18next';
import { isInstalled } from '../../alert/install';
import { isIos } from '../../alert/sms';

/**
 * iPhone and iPad offer no install button: Safari's own steps instead, and why they matter there
 * (without a home-screen icon Safari may delete the page's saved data after 7 days without use).
 */
export function IphoneInstall() {
  const { t } = useTranslation();
  if (!isIos() || isInstalled()) return null;
  return (
    <div className="note iphone-install" data-testid="ios-install">
      <p>{t('setup.iosSteps')}</p>
      <p>{t('setup.iosDataWarning')}</p>
    </div>
  );
}
