import type { StateCreator } from 'zustand';
import { MAX_TOASTS } from '../../common/constants';
import type { Message } from '../api/errors';
import type { Store } from './index';

export interface Toast {
  id: number;
  kind: 'success' | 'error' | 'info';
  message: Message;
}

export interface ToastSlice {
  toasts: Toast[];
  pushToast(kind: Toast['kind'], message: Message): number;
  dismissToast(id: number): void;
}

let nextId = 1;

/** Toasts: the newest last, at most MAX_TOASTS kept (the oldest dropped first). */
export const createToastSlice: StateCreator<Store, [], [], ToastSlice> = (set) => ({
  toasts: [],
  pushToast(kind, message) {
    const id = nextId++;
    set((state) => ({ toasts: [...state.toasts, { id, kind, message }].slice(-MAX_TOASTS) }));
    return id;
  },
  dismissToast(id) {
    set((state) => ({ toasts: state.toasts.filter((toast) => toast.id !== id) }));
  },
});
