import { type ChangeEventHandler, useCallback, useState } from 'react';
import type { Message } from '../api/errors';
import { Field } from './Field';
import { PasswordChecklist } from './PasswordChecklist';

/** One of the two password inputs: what `useForm().field(name, label)` gives. */
interface PasswordInput {
  label: string;
  name: string;
  value: string;
  onChange: ChangeEventHandler<HTMLInputElement>;
  error?: string | null;
}

interface PasswordFieldsProps {
  first: PasswordInput;
  second: PasswordInput;
  /** The checklist's id, which the first input names in aria-describedby. */
  checklistId: string;
  /** Passwords the server called too common (useRefusedPasswords). */
  refused?: ReadonlySet<string>;
}

/** A new password (described by its live checklist) and its repeat, as on the register and reset pages. */
export function PasswordFields({ first, second, checklistId, refused }: PasswordFieldsProps) {
  return (
    <>
      <Field type="password" autoComplete="new-password" {...first} aria-describedby={checklistId} required />
      <PasswordChecklist password={first.value} id={checklistId} refused={refused} />
      <Field type="password" autoComplete="new-password" {...second} required />
    </>
  );
}

const saysTooCommon = (message: Message | null | undefined) =>
  message !== null && message !== undefined && 'key' in message && message.key === 'errors.passwordTooCommon';

/**
 * The passwords the server refused as too common during this visit. The server checks a list of
 * thousands that the page does not carry; remembering its answers keeps the checklist's "not a
 * common password" line from contradicting the server for that password.
 */
export function useRefusedPasswords() {
  const [refused, setRefused] = useState<ReadonlySet<string>>(() => new Set());
  /** Remembers `password` when one of the answer's messages says it is too common. */
  const learn = useCallback((password: string, messages: (Message | null | undefined)[]) => {
    if (!messages.some(saysTooCommon)) return;
    // Written as the common-password check compares (common/password-rules.ts).
    setRefused((current) => new Set(current).add(password.trim().toLowerCase()));
  }, []);
  return { refused, learn };
}
