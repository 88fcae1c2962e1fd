import type { FormHTMLAttributes, ReactNode } from 'react';
import type { Message } from '../api/errors';
import { useHydrated } from '../lib/hydrated';
import { useMessageText } from '../lib/message';

interface StatusFormProps extends FormHTMLAttributes<HTMLFormElement> {
  /** Shown above the messages (a form's own title). */
  heading?: ReactNode;
  /** Said politely (role="status") above the fields. */
  success?: Message | null;
  /** Said at once (role="alert") above the fields. */
  error?: Message | null;
  submitLabel: string;
  /** The submit button is disabled while in flight or when the form cannot be sent. */
  disabled: boolean;
}

/**
 * A form checked by the app (noValidate): its success and error messages, the fields, then one
 * wide submit button. In a page the server drew, it takes no input until the app has taken the
 * page over (`inert`): typed before, a value would be lost, and a form sent then would go as a GET
 * with the password in the address.
 */
export function StatusForm({ heading, success, error, submitLabel, disabled, children, ...form }: StatusFormProps) {
  const text = useMessageText();
  const hydrated = useHydrated();
  return (
    <form noValidate inert={!hydrated} {...form}>
      {heading}
      {success && (
        <p className="form-success" role="status">
          {text(success)}
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {text(error)}
        </p>
      )}
      {children}
      <button type="submit" className="button primary wide" disabled={disabled}>
        {submitLabel}
      </button>
    </form>
  );
}
