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

/** The toasts, newest at the bottom, announced politely to screen readers. */
export function Toasts() {
  const toasts = useStore((state) => state.toasts);
  return (
    <ul className="toasts" aria-live="polite">
      {toasts.map((toast) => (
        <ToastItem key={toast.id} toast={toast} />
      ))}
    </ul>
  );
}
