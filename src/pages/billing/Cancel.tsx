import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** Back from a cancelled checkout. */
export function Cancel() {
  const { t } = useTranslation();
  return (
    <section className="page narrow">
      <h1>{t('cancel.title')}</h1>
      <p>{t('cancel.body')}</p>
      <div className="actions">
        <Link className="button primary" to="/">
          {t('cancel.home')}
        </Link>
      </div>
    </section>
  );
}
