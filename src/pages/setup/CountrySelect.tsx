import { type ComponentType, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Country, getCountryCallingCode } from 'react-phone-number-input';
import { COUNTRY_SEARCH_DEBOUNCE_MS } from '../../../common/constants';

interface Option {
  value?: Country;
  label: string;
  divider?: boolean;
}

interface CountrySelectProps {
  value?: Country;
  onChange(value?: Country): void;
  options: Option[];
  iconComponent: ComponentType<{ country?: Country; label: string }>;
  disabled?: boolean;
  readOnly?: boolean;
}

const INTERNATIONAL = 'ZZ';
const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The phone input's country picker: a search box (debounced) narrowing a native select, with the bundled flag. */
export function CountrySelect({
  value,
  onChange,
  options,
  iconComponent: Icon,
  disabled,
  readOnly,
}: CountrySelectProps) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const [filter, setFilter] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setFilter(query), COUNTRY_SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query]);

  const shown = useMemo(() => {
    const wanted = fold(filter.trim()).replace(/^\+/, '');
    return options.filter((option) => {
      if (option.divider) return false;
      if (!wanted || option.value === value) return true;
      const code = option.value ? getCountryCallingCode(option.value) : '';
      return fold(option.label).includes(wanted) || code.startsWith(wanted);
    });
  }, [options, filter, value]);

  const current = options.find((option) => option.value === value)?.label ?? '';
  return (
    <div className="country-select">
      <span className="country-flag">
        <Icon country={value} label={current} />
      </span>
      <input
        type="search"
        className="country-search"
        aria-label={t('setup.countrySearch')}
        placeholder={t('setup.countrySearch')}
        value={query}
        disabled={disabled || readOnly}
        onChange={(event) => setQuery(event.target.value)}
      />
      <select
        aria-label={t('setup.country')}
        value={value ?? INTERNATIONAL}
        disabled={disabled || readOnly}
        onChange={(event) =>
          onChange(event.target.value === INTERNATIONAL ? undefined : (event.target.value as Country))
        }
      >
        {shown.map((option) => (
          <option key={option.value ?? INTERNATIONAL} value={option.value ?? INTERNATIONAL}>
            {option.label}
            {option.value ? ` +${getCountryCallingCode(option.value)}` : ''}
          </option>
        ))}
      </select>
    </div>
  );
}
