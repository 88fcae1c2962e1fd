import { useTranslation } from 'react-i18next';
import type { Message } from '../api/errors';

/** A function turning catalogue messages into text in the current language. */
export function useMessageText() {
  const { t } = useTranslation();
  return (message: Message): string => {
    if ('text' in message) return message.text;
    const params: Record<string, string | number> = { ...message.params };
    // A field name becomes its label in the current language.
    if (typeof params.field === 'string') params.field = t(`fields.${params.field}`, { defaultValue: params.field });
    // So is a plan name (the contact limit's `plan: 'basic'` → "Básico").
    if (typeof params.plan === 'string') params.plan = t(`plans.${params.plan}`, { defaultValue: params.plan });
    return t(message.key, params);
  };
}
