import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OpenAlert } from '../../common/api/open-alerts';
import { forgetDeviceKey, saveDeviceKey } from '../lib/device-key';
import { OpenAlerts } from './OpenAlerts';

const missedDaily: OpenAlert = {
  id: 'al1',
  public_id: 'pub1',
  mode: 'real',
  reason: 'missed_daily',
  created_at: '2026-12-08T18:10:00Z',
  proven: true,
  recently_alerted: false,
  number_busy: false,
  deliveries: [{ contact_name: 'Rui', status: 'delivered' }],
  escalation: { status: 'waiting', at: '2026-12-08T18:15:00Z', calls: [] },
  since: '2026-12-07T09:41:00Z',
  live_url: 'https://alerta.test/a/pub1',
  responders: [{ name: 'Rui', created_at: '2026-12-08T18:19:00Z', contact: true, channel: 'sms' }],
} as OpenAlert;

describe('the open alerts on the emergency page', () => {
  afterEach(() => {
    forgetDeviceKey();
    vi.unstubAllGlobals();
  });

  it('with the owner’s key: says what raised each, since when, who is on the way and how, and ends it with the all-clear', async () => {
    await saveDeviceKey('dk_owner-key-0123456789abcdefghijklmnopqrstu', 'ana');
    const calls: { url: string; init?: RequestInit }[] = [];
    vi.stubGlobal('fetch', (url: string, init?: RequestInit) => {
      calls.push({ url, ...(init ? { init } : {}) });
      if (url === '/api/emergency/public/tok/open-alerts/') return Promise.resolve(Response.json([missedDaily]));
      if (url.endsWith('/resolve/')) {
        return Promise.resolve(Response.json({ state: 'resolved', resolved_at: '', all_clear_queued: 1 }));
      }
      return new Promise(() => undefined);
    });
    render(<OpenAlerts token="tok" language="pt" />);
    expect(await screen.findByTestId('open-alert-why')).toHaveTextContent(
      /^Não fez o check-in diário: os seus contactos foram alertados às \d\d:\d\d\.$/,
    );
    expect(screen.getByText(/^Sem sinal seu desde/)).toBeInTheDocument();
    expect(screen.getByTestId('open-alert-responders')).toHaveTextContent(/Rui vai a caminho \(\d\d:\d\d\)por SMS/);
    expect(calls[0]?.init?.headers).toMatchObject({ 'X-Alerta-Device-Key': expect.any(String) });
    fireEvent.click(screen.getByRole('button', { name: 'Estou em segurança' }));
    expect(screen.getByRole('checkbox', { name: 'Avisar os contactos por SMS de que estou bem' })).toBeChecked();
    fireEvent.click(screen.getByRole('button', { name: 'Sim, estou em segurança' }));
    expect(await screen.findByTestId('resolved')).toHaveTextContent('Alerta terminado');
    const resolve = calls.find((c) => c.url === '/api/emergency/public/tok/alerts/al1/resolve/');
    expect(JSON.parse(String(resolve?.init?.body))).toEqual({ notify: true });
  });

  it('in English, for a missed check-in', async () => {
    await saveDeviceKey('dk_owner-key-0123456789abcdefghijklmnopqrstu', 'ana');
    const checkin = { ...missedDaily, reason: 'missed_checkin', responders: [] } as OpenAlert;
    vi.stubGlobal('fetch', () => Promise.resolve(Response.json([checkin])));
    render(<OpenAlerts token="tok" language="en" />);
    expect(await screen.findByTestId('open-alert-why')).toHaveTextContent(
      /^Your check-in was not ended: your contacts were alerted at \d\d:\d\d\.$/,
    );
    expect(screen.getByText('Nobody has answered yet.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: "I'm safe" })).toBeInTheDocument();
  });

  it('without a key asks nothing and shows nothing (a link alone learns nothing of them)', async () => {
    const fetched = vi.fn(() => Promise.resolve(Response.json([missedDaily])));
    vi.stubGlobal('fetch', fetched);
    const { container } = render(<OpenAlerts token="tok" language="pt" />);
    await waitFor(() => expect(container).toBeEmptyDOMElement());
    expect(fetched).not.toHaveBeenCalled();
  });
});
