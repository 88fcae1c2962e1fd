import { useTranslation } from 'react-i18next';

/** A route whose screen is not built yet. */
export function Placeholder() {
  const { t } = useTranslation();
  return (
    <section className="page">
      <p>{t('common.comingSoon')}</p>
    </section>
  );
}
