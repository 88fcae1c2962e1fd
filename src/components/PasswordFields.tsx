import type { ChangeEventHandler } from 'react';
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
}

/** A new password (described by its live checklist) and its repeat, as on the register and reset pages. */
export function PasswordFields({ first, second, checklistId }: PasswordFieldsProps) {
  return (
    <>
      <Field type="password" autoComplete="new-password" {...first} aria-describedby={checklistId} required />
      <PasswordChecklist password={first.value} id={checklistId} />
      <Field type="password" autoComplete="new-password" {...second} required />
    </>
  );
}
