import { useTranslation } from 'react-i18next';

/** The emergency page opened by `/public/{token}/` and `/test/{token}/`. */
export function AlertPage() {
  const { t } = useTranslation();
  return (
    <main className="alert-page">
      <h1>{t('alert.title')}</h1>
      <p>{t('alert.loading')}</p>
    </main>
  );
}
