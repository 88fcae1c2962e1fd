import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEVICE_KEY_HEADER } from '../../../common/constants';
import { saveDeviceKey } from '../../lib/device-key';
import { PositionWatch } from '../geo';
import { CheckinPanel } from './CheckinPanel';
import { keyBytes } from './push';
import { checkinView, pageData, TOKEN } from './test-fixtures';

vi.mock('../sw-client', () => ({ onReplayed: () => () => undefined, replayQueued: async () => undefined }));

// A P-256 public key's 65 bytes in base64url, as the page data gives it.
const PUBLIC_KEY = `B${'A'.repeat(85)}`;
const SUBSCRIPTION = { endpoint: 'https://push.example/e1', keys: { p256dh: 'p'.repeat(87), auth: 'a'.repeat(22) } };
const page = pageData({ gps_enabled: false, contacts: [], push_public_key: PUBLIC_KEY });
const running = checkinView();
const DEVICE_KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';

function fakeServer() {
  const posts: { path: string; body: unknown; headers: Record<string, string> }[] = [];
  vi.stubGlobal('fetch', async (path: string, init: RequestInit = {}) => {
    if (init.method !== 'POST') return new Response('{}', { status: 404 });
    posts.push({ path, body: JSON.parse(String(init.body)), headers: (init.headers ?? {}) as Record<string, string> });
    return new Response(JSON.stringify(running), { status: path.endsWith('/checkins/') ? 201 : 200 });
  });
  return posts;
}

function fakePush(permission: NotificationPermission) {
  const requestPermission = vi.fn(async () => permission);
  const subscribe = vi.fn(async (_options: PushSubscriptionOptionsInit) => ({ toJSON: () => SUBSCRIPTION }));
  vi.stubGlobal('Notification', { requestPermission });
  vi.stubGlobal('PushManager', class {});
  const registration = { pushManager: { getSubscription: async () => null, subscribe } };
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { ready: Promise.resolve(registration) },
  });
  return { requestPermission, subscribe };
}

async function startOne() {
  render(<CheckinPanel token={TOKEN} geo={new PositionWatch()} page={page} language="en" />);
  fireEvent.click(await screen.findByRole('button', { name: 'Check in' }));
  fireEvent.click(screen.getByRole('button', { name: 'Start check-in' }));
  await screen.findByTestId('checkin-left');
}

describe('check-in reminders', () => {
  afterEach(() => {
    localStorage.clear();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    Reflect.deleteProperty(navigator, 'serviceWorker');
  });

  it('asks for notifications only once a check-in starts, then registers this browser with its device key', async () => {
    saveDeviceKey(DEVICE_KEY, 'u1');
    const posts = fakeServer();
    const { requestPermission, subscribe } = fakePush('granted');
    render(<CheckinPanel token={TOKEN} geo={new PositionWatch()} page={page} language="en" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Check in' }));
    expect(requestPermission).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Start check-in' }));
    await waitFor(() =>
      expect(posts.map((p) => p.path)).toContain(`/api/emergency/public/${TOKEN}/push-subscriptions/`),
    );
    expect(requestPermission).toHaveBeenCalledOnce();
    expect(subscribe.mock.calls[0]?.[0]).toEqual({ userVisibleOnly: true, applicationServerKey: keyBytes(PUBLIC_KEY) });
    expect(posts.at(-1)?.body).toEqual(SUBSCRIPTION);
    expect(posts.at(-1)?.headers[DEVICE_KEY_HEADER]).toBe(DEVICE_KEY);
  });

  it('asks nothing on a phone where the owner never signed in: the server takes reminders only for a device key', async () => {
    const posts = fakeServer();
    const { requestPermission } = fakePush('granted');
    await startOne();
    expect(requestPermission).not.toHaveBeenCalled();
    expect(posts.map((p) => p.path)).toEqual([`/api/emergency/public/${TOKEN}/checkins/`]);
  });

  it('subscribes nothing when notifications are refused', async () => {
    saveDeviceKey(DEVICE_KEY, 'u1');
    const posts = fakeServer();
    const { requestPermission, subscribe } = fakePush('denied');
    await startOne();
    await waitFor(() => expect(requestPermission).toHaveBeenCalledOnce());
    expect(subscribe).not.toHaveBeenCalled();
    expect(posts.map((p) => p.path)).toEqual([`/api/emergency/public/${TOKEN}/checkins/`]);
  });

  it('on an iPhone outside the home-screen app, says reminders need the icon', async () => {
    fakeServer();
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
    );
    await startOne();
    expect(
      screen.getByText(
        'On iPhone, reminders only arrive with Alerta opened from its home-screen icon (iOS 16.4 or later).',
      ),
    ).toBeInTheDocument();
  });

  it('turns the base64url key into its bytes', () => {
    expect([...keyBytes('AQID_-8')]).toEqual([1, 2, 3, 255, 239]);
  });
});
