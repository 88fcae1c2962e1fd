import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** Home, logged out: tagline, login and create-account buttons, three feature bullets. */
export function Home() {
  const { t } = useTranslation();
  return (
    <section className="page home">
      <h1>{t('app.name')}</h1>
      <p className="tagline">{t('app.tagline')}</p>
      <div className="actions">
        <Link className="button primary" to="/login">
          {t('home.login')}
        </Link>
        <Link className="button secondary" to="/register">
          {t('home.register')}
        </Link>
      </div>
      <ul className="bullets">
        <li>{t('home.bullets.one')}</li>
        <li>{t('home.bullets.two')}</li>
        <li>{t('home.bullets.three')}</li>
      </ul>
      <p className="note">{t('home.notReplacement')}</p>
    </section>
  );
}
