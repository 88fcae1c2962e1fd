import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_KEY, MAX_TOASTS, REFRESH_TOKEN_KEY } from '../../../common/constants';
import { resetStore, useStore } from '../../../src/store';
import { setupAppTests } from './helpers';

setupAppTests();

describe('store', () => {
  it('keeps at most 20 toasts, dropping the oldest', () => {
    const { pushToast } = useStore.getState();
    for (let i = 0; i < MAX_TOASTS + 5; i++) pushToast('info', { text: `t${i}` });
    const toasts = useStore.getState().toasts;
    expect(toasts).toHaveLength(MAX_TOASTS);
    expect(toasts[0]!.message).toEqual({ text: 't5' });
    expect(toasts.at(-1)!.message).toEqual({ text: `t${MAX_TOASTS + 4}` });
  });

  it('keeps both tokens across reloads and starts loading the user when there is an access token', () => {
    useStore.getState().setTokens('a1', 'r1');
    resetStore();
    expect(useStore.getState()).toMatchObject({ access: 'a1', refresh: 'r1', status: 'loading', user: null });
  });

  it('keeps the refresh token when a refresh answer carries none, and clears both on logout', () => {
    useStore.getState().setTokens('a1', 'r1');
    useStore.getState().setTokens('a2');
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBe('r1');
    useStore.getState().clearSession();
    expect(localStorage.getItem(ACCESS_TOKEN_KEY)).toBeNull();
    expect(localStorage.getItem(REFRESH_TOKEN_KEY)).toBeNull();
    expect(useStore.getState()).toMatchObject({ access: null, refresh: null, status: 'ready' });
  });
});
