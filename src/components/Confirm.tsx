import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

interface ConfirmProps {
  /** The button that asks for confirmation. */
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm(): void | Promise<void>;
  className?: string;
  busy?: boolean;
}

/** A button that asks "are you sure?" in place before doing something that cannot be undone. */
export function Confirm({
  label,
  question,
  confirmLabel,
  onConfirm,
  className = 'button secondary',
  busy,
}: ConfirmProps) {
  const { t } = useTranslation();
  const [asking, setAsking] = useState(false);
  const group = useRef<HTMLFieldSetElement>(null);
  // The question takes the button's place and the focus: read out at once, not missed below.
  useEffect(() => {
    if (asking) group.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" className={className} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <fieldset className="confirm" ref={group} tabIndex={-1}>
      <legend>{question}</legend>
      <div className="actions">
        <button
          type="button"
          className="button danger"
          disabled={busy}
          onClick={async () => {
            await onConfirm();
            setAsking(false);
          }}
        >
          {confirmLabel}
        </button>
        <button type="button" className="button secondary" onClick={() => setAsking(false)}>
          {t('common.cancel')}
        </button>
      </div>
    </fieldset>
  );
}
