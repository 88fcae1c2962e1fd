import { useTranslation } from 'react-i18next';
import { type PasswordChecks, passwordChecks } from '../../common/password-rules';

const LINES: (keyof PasswordChecks)[] = ['minLength', 'hasDigit', 'notCommon', 'notAllDigits'];

/**
 * The live password checklist of the register and reset pages: one line per rule, ticked when
 * it passes. An empty password ticks nothing: "not common" and "not only digits" say nothing yet.
 * `refused` holds the passwords the server has called too common.
 */
export function PasswordChecklist({
  password,
  id,
  refused,
}: {
  password: string;
  id?: string;
  refused?: ReadonlySet<string>;
}) {
  const { t } = useTranslation();
  const checks: PasswordChecks =
    password === ''
      ? { minLength: false, hasDigit: false, notCommon: false, notAllDigits: false }
      : passwordChecks(password, refused);
  return (
    <ul className="checklist" id={id} aria-label={t('register.checklist')}>
      {LINES.map((line) => (
        <li key={line} className={checks[line] ? 'ok' : 'todo'}>
          <span aria-hidden="true">{checks[line] ? '✓' : '○'}</span> {t(`register.checks.${line}`)}
          <span className="visually-hidden"> — {t(checks[line] ? 'register.checkOk' : 'register.checkTodo')}</span>
        </li>
      ))}
    </ul>
  );
}
