import { useTranslation } from 'react-i18next';
import type { PasswordChecks } from '../../common/password-rules';

const LINES: (keyof PasswordChecks)[] = ['minLength', 'hasDigit', 'notCommon', 'notAllDigits'];

/** The live password checklist of the register page: one line per rule, ticked when it passes. */
export function PasswordChecklist({ checks, id }: { checks: PasswordChecks; id?: string }) {
  const { t } = useTranslation();
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
