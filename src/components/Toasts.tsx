import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { TOAST_MS } from '../../common/constants';
import { useMessageText } from '../lib/message';
import { type Toast, useStore } from '../store';

function ToastItem({ toast }: { toast: Toast }) {
  const { t } = useTranslation();
  const text = useMessageText();
  const dismiss = useStore((state) => state.dismissToast);
  useEffect(() => {
    const timer = setTimeout(() => dismiss(toast.id), TOAST_MS);
    return () => clearTimeout(timer);
  }, [dismiss, toast.id]);
  return (
    <li className={`toast ${toast.kind}`}>
      <span>{text(toast.message)}</span>
      <button type="button" className="toast-close" aria-label={t('common.close')} onClick={() => dismiss(toast.id)}>
        ×
      </button>
    </li>
  );
}

let lastPressed: Element | null = null;
const notePressed = (event: Event) => {
  lastPressed = event.target instanceof Element ? (event.target.closest('button, a, input') ?? event.target) : null;
};

/**
 * Whether toasts go at the top of the screen: when the control that has the focus (the button a
 * toast confirms) sits in the lower half, where they would otherwise cover it.
 */
export function toastsOnTop(): boolean {
  // Safari does not focus a button on a tap: the last control pressed counts as well.
  const focused = document.activeElement !== document.body ? document.activeElement : lastPressed;
  if (!focused?.isConnected) return false;
  const box = focused.getBoundingClientRect();
  return box.top + box.height / 2 > window.innerHeight / 2;
}

/** The toasts, newest at the bottom, announced politely to screen readers, away from the button they confirm. */
export function Toasts() {
  const toasts = useStore((state) => state.toasts);
  useEffect(() => {
    document.addEventListener('click', notePressed, true);
    return () => document.removeEventListener('click', notePressed, true);
  }, []);
  return (
    <ul className={toasts.length > 0 && toastsOnTop() ? 'toasts top' : 'toasts'} aria-live="polite">
      {toasts.map((toast) => (
        <ToastItem key={toast.id} toast={toast} />
      ))}
    </ul>
  );
}
