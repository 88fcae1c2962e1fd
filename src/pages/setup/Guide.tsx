import { useTranslation } from 'react-i18next';

const STEPS = ['one', 'two', 'three', 'four', 'five', 'six'] as const;

/** The six-step getting-started guide, collapsible and open by default. */
export function Guide() {
  const { t } = useTranslation();
  return (
    <details className="guide" open>
      <summary>{t('setup.guide.title')}</summary>
      <ol>
        {STEPS.map((step) => (
          <li key={step}>{t(`setup.guide.${step}`)}</li>
        ))}
      </ol>
    </details>
  );
}
