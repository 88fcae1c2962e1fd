import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { DEVICE_KEY_HEADER } from '../../../common/constants';
import { saveDeviceKey } from '../../lib/device-key';
import { PositionWatch } from '../geo';
import { OwnerSignIn } from '../SignIn';
import { CheckinPanel } from './CheckinPanel';
import { checkinView, json, pageData, TOKEN } from './test-fixtures';

// The worker's word that a queued "I'm safe" reached the server: the test says it.
const replayed = vi.hoisted(() => ({ listener: null as ((message: object) => void) | null }));
vi.mock('../sw-client', () => ({
  onReplayed: (listener: (message: object) => void) => {
    replayed.listener = listener;
    return () => undefined;
  },
  replayQueued: async () => undefined,
}));

const page = pageData;
const view = checkinView;

type Handler = (path: string, init: RequestInit) => Response | Promise<Response>;
/** Every request the panel makes, and a fake server answering them. */
function serve(handler: Handler) {
  const calls: { path: string; method: string; body: unknown; headers: Record<string, string> }[] = [];
  vi.stubGlobal('fetch', async (path: string, init: RequestInit = {}) => {
    calls.push({
      path,
      method: init.method ?? 'GET',
      body: init.body ? JSON.parse(String(init.body)) : undefined,
      headers: (init.headers ?? {}) as Record<string, string>,
    });
    return handler(path, init);
  });
  return calls;
}

const current = `/api/emergency/public/${TOKEN}/checkins/current/`;

function show(data = page()) {
  const geo = new PositionWatch();
  return render(<CheckinPanel token={TOKEN} geo={geo} page={data} language="en" />);
}

describe('check-in on the emergency page', () => {
  beforeEach(() => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(true);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('starts a 30 min check-in with a note and shows the time left', async () => {
    const calls = serve((path, init) =>
      path === current
        ? json(404, { code: 'not_found' })
        : init.method === 'POST'
          ? json(201, view({ due_at: new Date(Date.now() + 30 * 60_000).toISOString() }))
          : json(500, {}),
    );
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Check in' }));
    fireEvent.click(screen.getByLabelText('30 min'));
    fireEvent.input(screen.getByLabelText('Note for your contacts (optional)'), { target: { value: 'Walk home' } });
    fireEvent.click(screen.getByRole('button', { name: 'Start check-in' }));
    expect(await screen.findByTestId('checkin-left')).toHaveTextContent(/^(30:00|29:5\d) left/);
    const start = calls.find((c) => c.method === 'POST');
    expect(start?.path).toBe(`/api/emergency/public/${TOKEN}/checkins/`);
    expect(start?.body).toEqual({ duration_seconds: 1800, note: 'Walk home' });
    expect(start?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("sends the owner's device key with its calls, as the alert does (they pass a ceiling a flooder filled)", async () => {
    saveDeviceKey('dk_owner-key-0123456789abcdefghijklmnopqrstu', 'u1');
    try {
      const calls = serve(() => json(200, view()));
      show();
      fireEvent.click(await screen.findByRole('button', { name: 'I’m safe' }));
      await waitFor(() => expect(calls.some((c) => c.path.endsWith('/done/'))).toBe(true));
      for (const call of calls) {
        expect(call.headers[DEVICE_KEY_HEADER], call.path).toBe('dk_owner-key-0123456789abcdefghijklmnopqrstu');
      }
    } finally {
      localStorage.clear();
    }
  });

  it('shows a running check-in from the server when the page reopens', async () => {
    serve(() => json(200, view({ due_at: new Date(Date.now() + 10 * 60_000 + 500).toISOString() })));
    show();
    expect(await screen.findByTestId('checkin-left')).toHaveTextContent(/^10:0\d left/);
    expect(screen.getByRole('button', { name: 'I’m safe' })).toBeEnabled();
    expect(screen.getByRole('button', { name: '+15 min' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Check in' })).toBeNull();
  });

  it('asks for the PIN on a numeric pad when one is set, and ends the check-in', async () => {
    const calls = serve((path) => (path === current ? json(200, view()) : json(200, { status: 'done' })));
    show(page({ checkin_pin: true }));
    const safe = await screen.findByRole('button', { name: 'I’m safe' });
    const pin = screen.getByLabelText('PIN');
    expect(pin).toHaveAttribute('inputmode', 'numeric');
    expect(safe).toBeDisabled();
    fireEvent.input(pin, { target: { value: '4321' } });
    fireEvent.click(safe);
    expect(await screen.findByTestId('checkin-done')).toHaveTextContent('Check-in ended. Nobody was alerted.');
    const done = calls.find((c) => c.method === 'POST');
    expect(done?.path).toBe(`/api/emergency/public/${TOKEN}/checkins/c1/done/`);
    expect(done?.body).toEqual({ pin: '4321' });
  });

  it('says a wrong PIN is wrong and keeps the check-in open', async () => {
    serve((path) => (path === current ? json(200, view()) : json(403, { code: 'wrong_pin' })));
    show(page({ checkin_pin: true }));
    fireEvent.input(await screen.findByLabelText('PIN'), { target: { value: '1' } });
    fireEvent.click(screen.getByRole('button', { name: 'I’m safe' }));
    expect(await screen.findByTestId('checkin-error')).toHaveTextContent('Wrong PIN.');
    expect(screen.getByTestId('checkin-left')).toBeInTheDocument();
  });

  it('"I\'m safe" without a PIN ends it; +15 min moves the due time', async () => {
    const later = new Date(Date.now() + 30 * 60_000).toISOString();
    const calls = serve((path) =>
      path === current
        ? json(200, view())
        : path.endsWith('/extend/')
          ? json(200, view({ due_at: later }))
          : json(200, { status: 'done' }),
    );
    show();
    fireEvent.click(await screen.findByRole('button', { name: '+15 min' }));
    await waitFor(() => expect(screen.getByTestId('checkin-left')).toHaveTextContent(/^(30:00|29:5\d) left/));
    expect(calls.find((c) => c.path.endsWith('/extend/'))?.body).toEqual({ seconds: 900 });
    fireEvent.click(screen.getByRole('button', { name: 'I’m safe' }));
    expect(await screen.findByTestId('checkin-done')).toBeInTheDocument();
    expect(calls.find((c) => c.path.endsWith('/done/'))?.body).toEqual({});
  });

  it('when it fired, says the contacts were alerted and offers the all-clear', async () => {
    serve(() =>
      json(200, view({ status: 'fired', ended_at: new Date().toISOString(), alert_id: 'a1', alert_public_id: 'p1' })),
    );
    show();
    expect(await screen.findByTestId('checkin-fired')).toHaveTextContent(
      'The check-in was not ended in time: your contacts were alerted.',
    );
    expect(screen.getByRole('button', { name: /I’m safe|I'm safe/ })).toBeInTheDocument();
  });

  it('when it fired and the answer names no alert (no proof on this phone), asks for the sign-in and offers no all-clear', async () => {
    serve(() => json(200, view({ status: 'fired', ended_at: new Date().toISOString(), alert_id: null })));
    show();
    expect(await screen.findByTestId('checkin-fired')).toHaveTextContent(
      'To see the alert and say you are safe, sign in on this phone.',
    );
    expect(screen.queryByRole('button', { name: /I’m safe|I'm safe/ })).toBeNull();
    expect(screen.queryByRole('link', { name: 'See the live alert' })).toBeNull();
  });

  it('"I\'m safe" after the alert went out shows the fired state, with the live page and the all-clear', async () => {
    const fired = view({ status: 'fired', alert_id: 'a1', alert_public_id: 'p1' });
    let ended = false;
    serve((path) => {
      if (path !== current) {
        ended = true;
        return json(409, { code: 'checkin_fired' });
      }
      return json(200, ended ? fired : view());
    });
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'I’m safe' }));
    expect(await screen.findByTestId('checkin-fired')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See the live alert' })).toHaveAttribute('href', `${location.origin}/a/p1`);
    expect(screen.queryByTestId('checkin-error')).toBeNull();
  });

  it('overdue, says when the alert goes out', async () => {
    serve(() => json(200, view({ status: 'overdue', due_at: new Date(Date.now() - 1000).toISOString() })));
    show();
    expect(await screen.findByTestId('checkin-overdue')).toHaveTextContent(/your contacts are alerted at \d\d:\d\d/);
  });

  it('offline, refuses to start and points to the alert button and the phone’s own SMS', async () => {
    const calls = serve(() => json(404, {}));
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Check in' }));
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Start check-in' }));
    });
    expect(screen.getByTestId('checkin-error')).toHaveTextContent(
      'No network: a check-in needs the server and was not started. In an emergency, use the alert button or "Send from my phone (SMS)".',
    );
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('a network error on start says the same', async () => {
    serve((path) => {
      if (path === current) return json(404, {});
      throw new TypeError('Failed to fetch');
    });
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'Check in' }));
    fireEvent.click(screen.getByRole('button', { name: 'Start check-in' }));
    expect(await screen.findByTestId('checkin-error')).toHaveTextContent(/^No network: a check-in needs the server/);
    expect(screen.queryByTestId('checkin-left')).toBeNull();
  });

  it('"I\'m safe" queued by the service worker says it waits for the network', async () => {
    serve((path) => (path === current ? json(200, view()) : json(202, { code: 'queued' })));
    show();
    fireEvent.click(await screen.findByRole('button', { name: 'I’m safe' }));
    expect(await screen.findByTestId('checkin-waiting')).toHaveTextContent('No network: "I’m safe" is queued');
  });

  it('"I\'m safe" waiting for a server that comes back with no network event is tried again, and ends it', async () => {
    let up = false;
    const calls = serve((path) => {
      if (path === current) return json(200, view(up ? { status: 'done', ended_at: new Date().toISOString() } : {}));
      return up ? json(200, { status: 'done' }) : json(503, { code: 'unavailable' });
    });
    // The page's clock runs on, and can be moved past the retry wait.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    try {
      show();
      fireEvent.click(await screen.findByRole('button', { name: 'I’m safe' }));
      expect(await screen.findByTestId('checkin-waiting')).toBeInTheDocument();
      up = true;
      await act(async () => {
        await vi.advanceTimersByTimeAsync(15_000);
      });
    } finally {
      vi.useRealTimers();
    }
    await waitFor(() => expect(screen.queryByTestId('checkin-waiting')).toBeNull());
    expect(calls.filter((call) => call.path.endsWith('/done/'))).toHaveLength(2);
  });

  it('speaks Portuguese on a Portuguese page', async () => {
    serve(() => json(404, {}));
    render(<CheckinPanel token={TOKEN} geo={new PositionWatch()} page={page({ language: 'pt' })} language="pt" />);
    expect(await screen.findByRole('button', { name: 'Fazer check-in' })).toBeInTheDocument();
  });

  describe("a check-in lowered without the owner's proof", () => {
    const proofRefused = () =>
      serve((path) => (path === current ? json(200, view()) : json(403, { code: 'owner_proof_required' })));
    /** The panel as the page shows it, with the page's own sign-in ("Is this your phone?") below. */
    const showWithSignIn = (language: 'en' | 'pt' = 'en') =>
      render(
        <>
          <CheckinPanel token={TOKEN} geo={new PositionWatch()} page={page({ language })} language={language} />
          <OwnerSignIn language={language} />
        </>,
      );

    it('says only the owner can end it, and opens the page’s sign-in', async () => {
      // jsdom lays nothing out: the page's scroll to the sign-in is only seen asked for.
      const scrolled = vi.fn();
      HTMLElement.prototype.scrollIntoView = scrolled;
      onTestFinished(() => {
        delete (HTMLElement.prototype as Partial<HTMLElement>).scrollIntoView;
      });
      proofRefused();
      showWithSignIn();
      fireEvent.click(await screen.findByRole('button', { name: 'I’m safe' }));
      expect(await screen.findByTestId('checkin-error')).toHaveTextContent(
        'Only the owner can end or postpone this check-in: sign in once on this phone and try again.',
      );
      const signIn = screen.getByTestId('owner-sign-in') as HTMLDetailsElement;
      expect(signIn.open).toBe(false);
      fireEvent.click(screen.getByRole('button', { name: 'Sign in on this phone' }));
      expect(signIn.open).toBe(true);
      expect(scrolled).toHaveBeenCalledTimes(1);
      expect(document.activeElement).toBe(screen.getByLabelText('Username or e-mail'));
      expect(screen.getAllByTestId('owner-sign-in')).toHaveLength(1);
    });

    it('in Portuguese too, for "+15 min"', async () => {
      proofRefused();
      showWithSignIn('pt');
      fireEvent.click(await screen.findByRole('button', { name: '+15 min' }));
      expect(await screen.findByTestId('checkin-error')).toHaveTextContent(
        'Só o titular pode terminar ou adiar este check-in: inicie sessão uma vez neste telemóvel e tente de novo.',
      );
      expect(screen.getByRole('button', { name: 'Iniciar sessão neste telemóvel' })).toBeInTheDocument();
    });

    it('shows the sign-in in the panel when this phone’s key was refused (the page hides its own)', async () => {
      saveDeviceKey('dk_removed-key-0123456789abcdefghijklmnopqrstu', 'u1');
      try {
        proofRefused();
        showWithSignIn();
        expect(screen.queryByTestId('owner-sign-in')).toBeNull();
        fireEvent.click(await screen.findByRole('button', { name: 'I’m safe' }));
        fireEvent.click(await screen.findByRole('button', { name: 'Sign in on this phone' }));
        expect(screen.getByTestId('owner-sign-in')).toHaveTextContent('Is this your phone?');
      } finally {
        localStorage.clear();
      }
    });

    it('a queued "I\'m safe" refused when the worker sent it stops waiting and says why', async () => {
      serve((path) => (path === current ? json(200, view()) : json(202, { code: 'queued' })));
      show();
      fireEvent.click(await screen.findByRole('button', { name: 'I’m safe' }));
      expect(await screen.findByTestId('checkin-waiting')).toBeInTheDocument();
      act(() => replayed.listener?.({ key: 'checkin-done-c1', status: 403, body: { code: 'owner_proof_required' } }));
      expect(await screen.findByTestId('checkin-error')).toHaveTextContent(/^Only the owner can end/);
      expect(screen.queryByTestId('checkin-waiting')).toBeNull();
    });
  });

  it('"+15 min" sends the PIN when one is set, and says when PINs are locked', async () => {
    const calls = serve((path) => (path === current ? json(200, view()) : json(403, { code: 'pin_locked' })));
    show(page({ checkin_pin: true }));
    const extend = await screen.findByRole('button', { name: '+15 min' });
    expect(extend).toBeDisabled();
    fireEvent.input(screen.getByLabelText('PIN'), { target: { value: '4321' } });
    fireEvent.click(extend);
    expect(await screen.findByTestId('checkin-error')).toHaveTextContent(
      'Too many wrong PINs: no PIN is accepted until the hour is over.',
    );
    expect(calls.find((c) => c.path.endsWith('/extend/'))?.body).toEqual({ seconds: 900, pin: '4321' });
  });
});
