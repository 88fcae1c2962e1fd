import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import type { PageData } from './api';

// The real idb-keyval over fake-indexeddb, with `set` able to report a full disk once.
const full = vi.hoisted(() => ({ next: false }));
vi.mock('idb-keyval', async (original) => {
  const real = await original<typeof import('idb-keyval')>();
  return {
    ...real,
    set: (...args: Parameters<typeof real.set>) => {
      if (full.next) {
        full.next = false;
        return Promise.reject(new DOMException('disk full', 'QuotaExceededError'));
      }
      return real.set(...args);
    },
  };
});

const { loadAlert, loadPage, saveAlert, savePage } = await import('./storage');

const data = (owner: string): PageData => ({
  owner_name: owner,
  language: 'pt',
  gps_enabled: true,
  countdown_seconds: 5,
  contacts: [{ name: 'Rui', phone_number: '+351912345678' }],
  messages: { real: 'r', test: 't' },
});

describe('emergency page storage', () => {
  it('keeps the page per token and the pressed alert apart', async () => {
    expect(await savePage('tok-a', data('Ana'))).toBe(true);
    await saveAlert({ key: 'k', token: 'tok-a', body: { mode: 'real', location: null }, pressed_at: 1 });
    expect((await loadPage('tok-a'))?.data.owner_name).toBe('Ana');
    expect((await loadAlert('tok-a'))?.key).toBe('k');
    expect(await loadPage('tok-unknown')).toBeUndefined();
  });

  it('on a full disk drops other tokens’ pages and keeps this one', async () => {
    await savePage('old-token', data('Old'));
    full.next = true;
    expect(await savePage('tok-b', data('Bea'))).toBe(true);
    expect((await loadPage('tok-b'))?.data.owner_name).toBe('Bea');
    expect(await loadPage('old-token')).toBeUndefined();
    // The pressed alert lives in its own store and is never dropped to make room.
    expect((await loadAlert('tok-a'))?.key).toBe('k');
  });
});
