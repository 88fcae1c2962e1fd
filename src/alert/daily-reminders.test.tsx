import 'fake-indexeddb/auto';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DailyView } from '../../common/api/daily';
import { forgetDeviceKey, saveDeviceKey } from '../lib/device-key';
import { keyBytes } from './checkin/push';
import { DailyOk } from './DailyOk';
import { dailyView, fakePush, PUSH_SUBSCRIPTION } from './daily-test-fixtures';
import { remindersHere } from './reminders-here';

// The daily check-in's reminder goes by e-mail and by Web Push to the browsers the owner
// registered. An owner who only uses the daily check-in (never a one-shot check-in) is offered
// the notifications on the emergency page: on the first "I'm OK today", or with "Remind me here".

const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';
const PUBLIC_KEY = `B${'A'.repeat(85)}`;
const SUBSCRIBE_PATH = '/api/emergency/public/tok/push-subscriptions/';
const HOUR = 3600_000;

const view = dailyView;

let posts: { url: string; headers: Headers; body: unknown }[] = [];
let statusView: DailyView = view();
let subscribeAnswer: () => Response = () => new Response(null, { status: 201 });

/** The server: the daily status, "I'm OK today" and the push subscription (201, no body, as the server answers). */
function fakeServer() {
  posts = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    if ((init.method ?? 'GET') === 'GET') return Response.json(statusView);
    posts.push({ url, headers: new Headers(init.headers), body: JSON.parse(String(init.body)) });
    if (url === SUBSCRIBE_PATH) return subscribeAnswer();
    return Response.json(view({ status: 'waiting', next_due_at: new Date(Date.now() + 20 * HOUR).toISOString() }));
  });
}

const subscribePosts = () => posts.filter((post) => post.url === SUBSCRIBE_PATH);

beforeEach(() => {
  statusView = view();
  subscribeAnswer = () => new Response(null, { status: 201 });
  fakeServer();
  saveDeviceKey(KEY, 'ana');
});
afterEach(async () => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  Reflect.deleteProperty(navigator, 'serviceWorker');
  await forgetDeviceKey();
  localStorage.clear();
});

describe('the daily reminder’s notifications on the emergency page', () => {
  it('the first “I’m OK today” asks for notifications within the tap and registers this phone with its device key, once', async () => {
    const { requestPermission, subscribe } = fakePush({ answer: 'granted' });
    render(<DailyOk token="tok" language="en" publicKey={PUBLIC_KEY} />);
    expect(
      await screen.findByText(
        'The daily reminder comes by e-mail. Tap “Remind me here” to get it as a notification on this phone too.',
      ),
    ).toBeInTheDocument();
    expect(requestPermission).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'I’m OK today' }));
    // Asked in the tap itself: a browser prompts only while the gesture lasts.
    expect(requestPermission).toHaveBeenCalledOnce();
    expect(
      await screen.findByText('This phone gets the daily reminder as a notification (and the e-mail still comes).'),
    ).toBeInTheDocument();
    expect(subscribe.mock.calls[0]?.[0]).toEqual({ userVisibleOnly: true, applicationServerKey: keyBytes(PUBLIC_KEY) });
    const [registered] = subscribePosts();
    expect(registered?.body).toEqual(PUSH_SUBSCRIPTION);
    expect(registered?.headers.get('x-alerta-device-key')).toBe(KEY);
    expect(posts.map((post) => post.url)).toContain('/api/emergency/public/tok/daily/ok/');
    expect(screen.queryByRole('button', { name: 'Remind me here' })).toBeNull();

    // The next day's tap (and a reopened page) only checks in: nothing asked or registered again.
    cleanup();
    render(<DailyOk token="tok" language="en" publicKey={PUBLIC_KEY} />);
    expect(
      await screen.findByText('This phone gets the daily reminder as a notification (and the e-mail still comes).'),
    ).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'I’m OK today' }));
    expect(await screen.findByText('Checked in. Thank you!')).toBeInTheDocument();
    expect(requestPermission).toHaveBeenCalledOnce();
    expect(subscribe).toHaveBeenCalledOnce();
    expect(subscribePosts()).toHaveLength(1);
  });

  it('“Remind me here” registers this phone while no check-in is due yet, in Portuguese too', async () => {
    statusView = view({ status: 'waiting', next_due_at: new Date(Date.now() + 20 * HOUR).toISOString() });
    const { requestPermission } = fakePush({ answer: 'granted' });
    render(<DailyOk token="tok" language="pt" publicKey={PUBLIC_KEY} />);
    const remind = await screen.findByRole('button', { name: 'Lembrar-me aqui' });
    remind.focus();
    fireEvent.click(remind);
    expect(requestPermission).toHaveBeenCalledOnce();
    const on = await screen.findByText(
      'Este telemóvel recebe o lembrete diário como notificação (e o e-mail chega na mesma).',
    );
    // The button is gone: focus moves to what it says now.
    await waitFor(() => expect(document.activeElement).toBe(on));
    expect(subscribePosts()).toHaveLength(1);
    expect(posts.map((post) => post.url)).not.toContain('/api/emergency/public/tok/daily/ok/');
  });

  it('a tap dismissed without an answer is not asked again on the next tap; “Remind me here” still asks', async () => {
    const { requestPermission } = fakePush();
    render(<DailyOk token="tok" language="en" publicKey={PUBLIC_KEY} />);
    fireEvent.click(await screen.findByRole('button', { name: 'I’m OK today' }));
    expect(await screen.findByText('Checked in. Thank you!')).toBeInTheDocument();
    cleanup();
    render(<DailyOk token="tok" language="en" publicKey={PUBLIC_KEY} />);
    fireEvent.click(await screen.findByRole('button', { name: 'I’m OK today' }));
    await waitFor(() => expect(posts.filter((post) => post.url.endsWith('/daily/ok/'))).toHaveLength(2));
    expect(requestPermission).toHaveBeenCalledOnce();
    fireEvent.click(screen.getByRole('button', { name: 'Remind me here' }));
    expect(requestPermission).toHaveBeenCalledTimes(2);
    expect(subscribePosts()).toHaveLength(0);
  });

  it('with notifications blocked, says the reminder comes by e-mail only, and asks nothing', async () => {
    const { requestPermission } = fakePush({ permission: 'denied' });
    render(<DailyOk token="tok" language="en" publicKey={PUBLIC_KEY} />);
    expect(
      await screen.findByText(
        'Notifications from Alerta are blocked in this browser: the daily reminder comes by e-mail only. You can allow them in the browser’s settings.',
      ),
    ).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'I’m OK today' }));
    expect(await screen.findByText('Checked in. Thank you!')).toBeInTheDocument();
    expect(requestPermission).not.toHaveBeenCalled();
    expect(screen.queryByRole('button', { name: 'Remind me here' })).toBeNull();
  });

  it('refused on the tap, says so', async () => {
    fakePush({ answer: 'denied' });
    render(<DailyOk token="tok" language="pt" publicKey={PUBLIC_KEY} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Estou bem hoje' }));
    expect(
      await screen.findByText(
        'As notificações do Alerta estão bloqueadas neste navegador: o lembrete diário chega só por e-mail. Pode permiti-las nas definições do navegador.',
      ),
    ).toBeInTheDocument();
    expect(subscribePosts()).toHaveLength(0);
  });

  it('without the Push API, says so and that the e-mail still comes', async () => {
    render(<DailyOk token="tok" language="pt" publicKey={PUBLIC_KEY} />);
    expect(
      await screen.findByText('Este navegador não mostra notificações: o lembrete diário chega só por e-mail.'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Lembrar-me aqui' })).toBeNull();
  });

  it('with reminders already on four devices, says to remove one first', async () => {
    subscribeAnswer = () => Response.json({ detail: 'full', code: 'push_subscriptions_full' }, { status: 409 });
    fakePush({ answer: 'granted' });
    render(<DailyOk token="tok" language="en" publicKey={PUBLIC_KEY} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Remind me here' }));
    expect(
      await screen.findByText('Reminders already go to 4 devices: remove one in Setup first. The e-mail still comes.'),
    ).toBeInTheDocument();
    expect(await remindersHere()).toBe('off');
  });

  it('a phone registered under an earlier device key is offered again (the server knows it under the new key only)', async () => {
    fakePush({ answer: 'granted' });
    render(<DailyOk token="tok" language="en" publicKey={PUBLIC_KEY} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Remind me here' }));
    await waitFor(async () => expect(await remindersHere()).toBe('on'));
    await saveDeviceKey('dk_another-key-0123456789abcdefghijklmnopqrs', 'ana');
    expect(await remindersHere()).toBe('off');
  });

  it('a tap before the page has the public key asks nothing and notes nothing: the next tap asks', async () => {
    const { requestPermission } = fakePush({ answer: 'granted' });
    render(<DailyOk token="tok" language="en" publicKey={null} />);
    fireEvent.click(await screen.findByRole('button', { name: 'I’m OK today' }));
    expect(await screen.findByText('Checked in. Thank you!')).toBeInTheDocument();
    expect(requestPermission).not.toHaveBeenCalled();
    expect(localStorage.getItem('alerta.daily-push-offered')).toBeNull();
    cleanup();
    statusView = view();
    render(<DailyOk token="tok" language="en" publicKey={PUBLIC_KEY} />);
    fireEvent.click(await screen.findByRole('button', { name: 'I’m OK today' }));
    expect(requestPermission).toHaveBeenCalledOnce();
    expect(localStorage.getItem('alerta.daily-push-offered')).not.toBeNull();
  });
});
