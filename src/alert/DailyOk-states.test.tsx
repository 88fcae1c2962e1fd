import 'fake-indexeddb/auto';
import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DailyView } from '../../common/api/daily';
import { forgetDeviceKey, saveDeviceKey } from '../lib/device-key';
import type { PageData } from './api';
import { DailyOk } from './DailyOk';
import { dailyView as view } from './daily-test-fixtures';
import { OwnerSignIn } from './SignIn';
import { forgetPage, savePage } from './storage';

const KEY = 'dk_owner-key-0123456789abcdefghijklmnopqrstu';
const HOUR = 3600_000;
const json = (body: unknown) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });

let status: DailyView;
let afterOk: DailyView;

beforeEach(async () => {
  saveDeviceKey(KEY, 'ana');
  // The owner's clock is Lisbon's, whatever this device says.
  await savePage('tok', { time_zone: 'Europe/Lisbon' } as PageData);
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init?: RequestInit) => json(init?.method === 'POST' ? afterOk : status)),
  );
});
afterEach(async () => {
  vi.unstubAllGlobals();
  forgetDeviceKey();
  await forgetPage('tok');
});

const lisbon = (at: number) =>
  new Intl.DateTimeFormat('pt-PT', {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone: 'Europe/Lisbon',
  }).format(at);

// What the owner reads on the emergency page beside "I'm OK today", in both languages.
describe('the emergency page’s daily check-in states', () => {
  it('while a check-in is due, says when the contacts are alerted (the due time plus the grace)', async () => {
    const due = Date.now() - HOUR / 2;
    status = view({ status: 'due', next_due_at: new Date(due).toISOString(), grace_minutes: 90 });
    const { unmount } = render(<DailyOk token="tok" language="pt" />);
    const time = lisbon(due + 90 * 60_000);
    expect(await screen.findByText(`Check-in em falta: os seus contactos são alertados às ${time}.`)).toBeVisible();
    unmount();
    render(<DailyOk token="tok" language="en" />);
    expect(await screen.findByText(`Check-in due: your contacts are alerted at ${time}.`)).toBeVisible();
  });

  it('once checked in, the button goes and the page says it counted, with the time', async () => {
    status = view({ status: 'due' });
    const tapped = Date.now();
    afterOk = view({
      status: 'waiting',
      next_due_at: new Date(tapped + 23 * HOUR).toISOString(),
      last_ok_at: new Date(tapped).toISOString(),
    });
    render(<DailyOk token="tok" language="pt" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Estou bem hoje' }));
    expect(await screen.findByText(`Feito hoje às ${lisbon(tapped)} ✓`)).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Estou bem hoje' })).toBeNull();
  });

  it('opened again later the same day, still says it was done', async () => {
    const at = Date.now() - 60_000;
    status = view({
      status: 'waiting',
      next_due_at: new Date(at + 20 * HOUR).toISOString(),
      last_ok_at: new Date(at).toISOString(),
    });
    render(<DailyOk token="tok" language="en" />);
    expect(await screen.findByText(`Done today at ${lisbon(at)} ✓`)).toBeVisible();
  });

  it('“I’m OK today” is not drawn as the alarm’s red button', async () => {
    status = view({ status: 'due' });
    render(<DailyOk token="tok" language="pt" />);
    const button = await screen.findByRole('button', { name: 'Estou bem hoje' });
    expect(button).toHaveClass('calm');
    expect(button).not.toHaveClass('danger');
    expect(button.className.split(' ')).toEqual(['button', 'calm']);
  });

  it('writes the pause’s end as a local date, not as ISO', async () => {
    status = view({ status: 'paused', paused_until: '2026-12-10', next_due_at: null });
    const { unmount } = render(<DailyOk token="tok" language="pt" />);
    expect(await screen.findByText('Check-in diário em pausa até 10/12/2026.')).toBeVisible();
    unmount();
    render(<DailyOk token="tok" language="en" />);
    expect(await screen.findByText('Daily check-in paused until 10/12/2026.')).toBeVisible();
  });

  it('“Sign in on this phone” opens the page’s sign-in on its username field, not its heading', async () => {
    forgetDeviceKey();
    render(
      <>
        <DailyOk token="tok" language="en" fromReminder />
        <OwnerSignIn language="en" offer />
      </>,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Sign in on this phone' }));
    const username = document.querySelector('details.owner-sign-in input[name="username"]');
    await vi.waitFor(() => expect(document.activeElement).toBe(username));
    expect(username?.closest('details')?.open).toBe(true);
  });
});
