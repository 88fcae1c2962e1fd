import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

interface ActionLink {
  to: string;
  label: string;
}

/** A row of links drawn as buttons: the main way on, and optionally a second one. */
export function ActionLinks({ primary, secondary }: { primary: ActionLink; secondary?: ActionLink }) {
  return (
    <div className="actions">
      <Link className="button primary" to={primary.to}>
        {primary.label}
      </Link>
      {secondary && (
        <Link className="button secondary" to={secondary.to}>
          {secondary.label}
        </Link>
      )}
    </div>
  );
}

/** The two ways in for a visitor without a session: log in, or create an account. */
export function LoginOrRegister() {
  const { t } = useTranslation();
  return (
    <ActionLinks
      primary={{ to: '/login', label: t('home.login') }}
      secondary={{ to: '/register', label: t('home.register') }}
    />
  );
}
