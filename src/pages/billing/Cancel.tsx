import { useTranslation } from 'react-i18next';
import { ActionLinks } from '../../components/ActionLinks';

/** Back from a cancelled checkout. */
export function Cancel() {
  const { t } = useTranslation();
  return (
    <section className="page narrow">
      <h1>{t('cancel.title')}</h1>
      <p>{t('cancel.body')}</p>
      <ActionLinks primary={{ to: '/', label: t('cancel.home') }} />
    </section>
  );
}
