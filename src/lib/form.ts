import { type ChangeEvent, useState } from 'react';
import type { MappedError, Message } from '../api/errors';
import { useMessageText } from './message';

/**
 * The state of a form of text fields: the values, whether it is in flight, the form's message and
 * the errors by field. `field(name, label)` gives a `Field` its name, label, value, change handler and error.
 */
export function useForm<Values extends Record<string, string>>(initial: Values) {
  const text = useMessageText();
  const [values, setValues] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Message | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, Message>>({});

  const fieldError = (name: string) => (fieldErrors[name] ? text(fieldErrors[name]) : null);
  return {
    values,
    busy,
    setBusy,
    error,
    setError,
    setFieldErrors,
    fieldError,
    /** Clears the form's message and the field errors before a new attempt. */
    clearErrors() {
      setError(null);
      setFieldErrors({});
    },
    /** Shows a failed attempt: the form's message and the errors by field; `fallback` when the answer names neither. */
    showFailure({ message, fields }: MappedError, fallback: Message | null = null) {
      setError(message ?? (Object.keys(fields).length > 0 ? null : fallback));
      setFieldErrors(fields);
    },
    /** Empties the fields again. */
    reset: () => setValues(initial),
    field: (name: keyof Values & string, label: string) => ({
      name,
      label,
      value: values[name],
      onChange: (event: ChangeEvent<HTMLInputElement>) =>
        setValues((current) => ({ ...current, [name]: event.target.value })),
      error: fieldError(name),
    }),
  };
}
