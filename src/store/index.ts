import { create } from 'zustand';
import { type ConfigSlice, createConfigSlice } from './config';
import { createSessionSlice, initialSession, type SessionSlice } from './session';
import { createToastSlice, type ToastSlice } from './toasts';

export type { Toast } from './toasts';
export type Store = SessionSlice & ToastSlice & ConfigSlice;

/** The one app store, combined from its slices (session, toasts, the server's configuration). */
export const useStore = create<Store>()((...args) => ({
  ...createSessionSlice(...args),
  ...createToastSlice(...args),
  ...createConfigSlice(...args),
}));

/** Puts the store back to a fresh start, re-reading the saved tokens (tests call it between cases). */
export function resetStore() {
  useStore.setState({ ...initialSession(), toasts: [], serverConfig: null, serverConfigLoad: null });
}
