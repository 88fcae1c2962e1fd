import 'fake-indexeddb/auto';
import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { okOffered as okShown } from '../../common/daily-view';
import { forgetDeviceKey, saveDeviceKey } from '../lib/device-key';
import type { PageData } from './api';
import { DailyOk, whenText } from './DailyOk';
import { dailyView, fakePush } from './daily-test-fixtures';
import { ownerAskedToSignIn, resetAskedToSignIn } from './owner-proof-asked';
import { forgetPage, savePage } from './storage';

const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';
const HOUR = 3600_000;
const view = dailyView;
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

let calls: { url: string; method: string; headers: Headers; body: unknown }[] = [];
let okAnswer: () => Response;
let statusAnswer: () => Response;

beforeEach(() => {
  // The module's "asked to sign in" outlives the test files before this one in the same worker.
  resetAskedToSignIn();
  calls = [];
  okAnswer = () => json(200, view({ status: 'waiting' }));
  statusAnswer = () => json(200, view());
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const method = init?.method ?? 'GET';
      calls.push({
        url,
        method,
        headers: new Headers(init?.headers),
        body: init?.body && JSON.parse(String(init.body)),
      });
      return method === 'POST' ? okAnswer() : statusAnswer();
    }),
  );
});
afterEach(async () => {
  vi.unstubAllGlobals();
  Reflect.deleteProperty(navigator, 'serviceWorker');
  forgetDeviceKey();
  resetAskedToSignIn();
  await forgetPage('tok');
});

// "I'm OK today" lowers the alarm: only the owner's phone (its device key) sees and sends it.
describe('the emergency page’s “I’m OK today”', () => {
  it('checks in with the device key and the time it was tapped, and says so', async () => {
    saveDeviceKey(KEY, 'ana');
    render(<DailyOk token="tok" language="en" />);
    fireEvent.click(await screen.findByRole('button', { name: 'I’m OK today' }));
    expect(await screen.findByText('Checked in. Thank you!')).toBeInTheDocument();
    const [read, ok] = calls;
    expect(read?.url).toBe('/api/emergency/public/tok/daily/');
    expect(read?.headers.get('x-alerta-device-key')).toBe(KEY);
    expect(ok?.url).toBe('/api/emergency/public/tok/daily/ok/');
    expect(ok?.headers.get('x-alerta-device-key')).toBe(KEY);
    expect(ok?.headers.get('idempotency-key')).toMatch(/^daily-ok-/);
    expect(Date.parse((ok as { body: { at: string } }).body.at)).toBeLessThanOrEqual(Date.now());
  });

  it('tells the owner a tap queued offline goes later, and a refused one to sign in on this phone', async () => {
    saveDeviceKey(KEY, 'ana');
    okAnswer = () => json(202, { detail: 'Queued until the network returns.', code: 'queued' });
    // Background Sync (Chromium) sends it when the network returns, Alerta open or not.
    vi.stubGlobal('SyncManager', class {});
    const { unmount } = render(<DailyOk token="tok" language="pt" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Estou bem hoje' }));
    expect(
      await screen.findByText('Guardado: é enviado quando a rede voltar, com a hora em que tocou.'),
    ).toBeInTheDocument();
    unmount();
    Reflect.deleteProperty(window, 'SyncManager');
    okAnswer = () => json(403, { detail: 'x', code: 'owner_proof_required' });
    render(<DailyOk token="tok" language="en" />);
    fireEvent.click(await screen.findByRole('button', { name: 'I’m OK today' }));
    expect(await screen.findByText('To check in here, sign in once on this phone.')).toBeInTheDocument();
    // As every change only the owner may make: the page offers its sign-in.
    expect(ownerAskedToSignIn()).toBe(true);
  });

  it('shows the next due time on the owner’s clock (the page’s time zone), not the device’s', async () => {
    saveDeviceKey(KEY, 'ana');
    await savePage('tok', { time_zone: 'Pacific/Auckland' } as PageData);
    const due = new Date(Date.now() + 20 * HOUR).toISOString();
    statusAnswer = () => json(200, view({ status: 'waiting', next_due_at: due }));
    render(<DailyOk token="tok" language="en" />);
    const auckland = new Date(due).toLocaleString('en-GB', {
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'Pacific/Auckland',
    });
    expect(await screen.findByText(`Next daily check-in due by ${auckland}.`)).toBeInTheDocument();
    expect(whenText(due, 'en', 'Pacific/Auckland')).toBe(auckland);
    expect(whenText(due, 'en', 'Not/A_Zone')).toBe(
      new Date(due).toLocaleString('en-GB', { weekday: 'short', hour: '2-digit', minute: '2-digit' }),
    );
  });

  it('shows nothing and asks nothing without this phone’s device key', async () => {
    const { container } = render(<DailyOk token="tok" language="en" />);
    await Promise.resolve();
    expect(calls).toEqual([]);
    expect(container).toBeEmptyDOMElement();
  });

  it('shows the next due time when it is far, the pause, and the button when due, missed or coming', async () => {
    saveDeviceKey(KEY, 'ana');
    statusAnswer = () =>
      json(200, view({ status: 'waiting', next_due_at: new Date(Date.now() + 20 * HOUR).toISOString() }));
    render(<DailyOk token="tok" language="en" />);
    expect(await screen.findByText(/Next daily check-in due by/)).toBeInTheDocument();
    expect(screen.queryByRole('button')).toBeNull();
    const now = Date.now();
    expect(okShown(view({ status: 'waiting', next_due_at: new Date(now + 2 * HOUR).toISOString() }), now)).toBe(true);
    expect(okShown(view({ status: 'missed' }), now)).toBe(true);
    expect(okShown(view({ status: 'paused', paused_until: '2030-01-01' }), now)).toBe(false);
  });

  it('opened from the daily reminder, brings "I’m OK today" into view and focuses it', async () => {
    saveDeviceKey(KEY, 'ana');
    statusAnswer = () => json(200, view());
    render(<DailyOk token="tok" language="pt" fromReminder />);
    const button = await screen.findByRole('button', { name: 'Estou bem hoje' });
    await vi.waitFor(() => expect(document.activeElement).toBe(button));
  });

  it('opened from the daily reminder where this phone cannot check in, says to sign in and offers it', async () => {
    const { unmount } = render(<DailyOk token="tok" language="en" fromReminder />);
    expect(await screen.findByText('To check in here, sign in once on this phone.')).toBeInTheDocument();
    expect(calls).toEqual([]);
    expect(ownerAskedToSignIn()).toBe(true);
    unmount();
    resetAskedToSignIn();
    // A key the server refuses (removed from Setup, another account's).
    saveDeviceKey(KEY, 'ana');
    statusAnswer = () => json(403, { detail: 'x', code: 'owner_proof_required' });
    render(<DailyOk token="tok" language="pt" fromReminder />);
    expect(await screen.findByText('Para fazer o check-in aqui, entre uma vez neste telemóvel.')).toBeInTheDocument();
    expect(ownerAskedToSignIn()).toBe(true);
    statusAnswer = () => json(200, view());
  });

  it('without Background Sync, a queued tap says it goes with Alerta open (or opened again), in pt and en', async () => {
    saveDeviceKey(KEY, 'ana');
    okAnswer = () => json(202, { detail: 'Queued until the network returns.', code: 'queued' });
    expect('SyncManager' in window).toBe(false);
    const { unmount } = render(<DailyOk token="tok" language="en" />);
    fireEvent.click(await screen.findByRole('button', { name: 'I’m OK today' }));
    expect(
      await screen.findByText(
        'Saved on this phone: it goes when the network returns with Alerta open (or when you next open it), with the time you tapped.',
      ),
    ).toBeInTheDocument();
    unmount();
    render(<DailyOk token="tok" language="pt" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Estou bem hoje' }));
    expect(
      await screen.findByText(
        'Guardado neste telemóvel: é enviado quando a rede voltar com o Alerta aberto (ou quando o abrir de novo), com a hora em que tocou.',
      ),
    ).toBeInTheDocument();
  });

  it('after the check-in the button goes and focus moves to the sentence saying it went', async () => {
    saveDeviceKey(KEY, 'ana');
    okAnswer = () =>
      json(200, view({ status: 'waiting', next_due_at: new Date(Date.now() + 20 * HOUR).toISOString() }));
    render(<DailyOk token="tok" language="en" />);
    const button = await screen.findByRole('button', { name: 'I’m OK today' });
    button.focus();
    fireEvent.click(button);
    const done = await screen.findByText('Checked in. Thank you!');
    expect(screen.queryByRole('button', { name: 'I’m OK today' })).toBeNull();
    await vi.waitFor(() => expect(document.activeElement).toBe(done));
  });

  it('opened from the reminder without a key, then signed in on the page: reads the status again and focuses the button', async () => {
    const { rerender } = render(<DailyOk token="tok" language="en" fromReminder signedIn={0} />);
    expect(await screen.findByText('To check in here, sign in once on this phone.')).toBeInTheDocument();
    expect(calls).toEqual([]);
    saveDeviceKey(KEY, 'ana');
    rerender(<DailyOk token="tok" language="en" fromReminder signedIn={1} />);
    const button = await screen.findByRole('button', { name: 'I’m OK today' });
    await vi.waitFor(() => expect(document.activeElement).toBe(button));
    expect(screen.queryByText('To check in here, sign in once on this phone.')).toBeNull();
    expect(calls.map((call) => call.url)).toEqual(['/api/emergency/public/tok/daily/']);
  });

  it('the reminder tapped while the page is open (the worker asks): reads the status again and focuses the button', async () => {
    saveDeviceKey(KEY, 'ana');
    const { container } = fakePush({ permission: 'denied' });
    statusAnswer = () =>
      json(200, view({ status: 'waiting', next_due_at: new Date(Date.now() + 20 * HOUR).toISOString() }));
    render(<DailyOk token="tok" language="en" />);
    expect(await screen.findByText(/Next daily check-in due by/)).toBeInTheDocument();
    // Since then, it fell due.
    statusAnswer = () => json(200, view());
    container.dispatchEvent(new MessageEvent('message', { data: { type: 'SHOW_DAILY' } }));
    const button = await screen.findByRole('button', { name: 'I’m OK today' });
    await vi.waitFor(() => expect(document.activeElement).toBe(button));
    expect(calls.filter((call) => call.method === 'GET')).toHaveLength(2);
    container.dispatchEvent(new MessageEvent('message', { data: { type: 'SOMETHING_ELSE' } }));
    await Promise.resolve();
    expect(calls.filter((call) => call.method === 'GET')).toHaveLength(2);
  });
});
