// Shared by the check-in tests of the emergency page: its data, a check-in as the server
// shows it, and a JSON answer. Test code only: nothing of the page imports it.
import type { PageData } from '../api';
import type { CheckinView } from './api';

export const TOKEN = 'tok';

export const pageData = (extra: Partial<PageData> = {}): PageData => ({
  owner_name: 'Ana',
  language: 'en',
  gps_enabled: true,
  countdown_seconds: 5,
  contacts: [{ name: 'Rui', phone_number: '+351912345678' }],
  messages: { real: '', test: '' },
  ...extra,
});

/** A check-in running for 15 more minutes, its alert 5 minutes after. */
export const checkinView = (extra: Partial<CheckinView> = {}): CheckinView => ({
  id: 'c1',
  status: 'running',
  due_at: new Date(Date.now() + 15 * 60_000).toISOString(),
  grace_seconds: 300,
  fires_at: new Date(Date.now() + 20 * 60_000).toISOString(),
  note: null,
  created_at: new Date().toISOString(),
  ended_at: null,
  alert_id: null,
  alert_public_id: null,
  ...extra,
});

export const json = (status: number, body: unknown) =>
  new Response(body === null ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
