import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** A text page: title, intro, titled sections from `${prefix}.sections.<id>`, last-updated line, back to /. */
function InfoPage({ prefix, sections }: { prefix: string; sections: readonly string[] }) {
  const { t } = useTranslation();
  return (
    <article className="page prose">
      <h1>{t(`${prefix}.title`)}</h1>
      <p className="lead">{t(`${prefix}.intro`)}</p>
      {sections.map((id) => (
        <section key={id} aria-labelledby={`${prefix}-${id}`}>
          <h2 id={`${prefix}-${id}`}>{t(`${prefix}.sections.${id}.title`)}</h2>
          <p>{t(`${prefix}.sections.${id}.body`)}</p>
        </section>
      ))}
      <p className="note">{t(`${prefix}.updated`)}</p>
      <Link className="button secondary" to="/">
        {t('common.back')}
      </Link>
    </article>
  );
}

const LEGAL_SECTIONS = [
  'emergency',
  'service',
  'account',
  'subscription',
  'delivery',
  'use',
  'liability',
  'changes',
  'contact',
] as const;
const PRIVACY_SECTIONS = [
  'collection',
  'usage',
  'location',
  'thirdParties',
  'retention',
  'security',
  'rights',
  'contact',
] as const;

/** Terms of use and disclaimer. */
export const Legal = () => <InfoPage prefix="legal" sections={LEGAL_SECTIONS} />;

/** Privacy policy. */
export const Privacy = () => <InfoPage prefix="privacy" sections={PRIVACY_SECTIONS} />;
