import { fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contactKeyOf, sendAck } from '../../../src/live/api';
import { LivePage } from '../../../src/live/LivePage';

const view = {
  state: 'active',
  owner_name: 'Ana',
  language: 'en',
  created_at: new Date().toISOString(),
  resolved_at: null,
  tracking_until: new Date(Date.now() + 3_600_000).toISOString(),
  trail: [],
  responders: [
    { name: 'Rui Costa', created_at: new Date().toISOString(), contact: true, channel: 'link' },
    { name: 'Zé', created_at: new Date().toISOString(), contact: false },
  ],
  map: { tile_url: '', attribution: '', attribution_url: '' },
};

describe('"I\'m on my way" on the live page', () => {
  let posted: unknown[];
  let answer: { status: number; body: unknown };
  beforeEach(() => {
    posted = [];
    answer = { status: 201, body: { name: 'x', created_at: view.created_at, contact: true, channel: 'link' } };
    vi.stubGlobal('EventSource', undefined);
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url.endsWith('/ack/')) {
          posted.push(JSON.parse(String(init?.body)));
          return new Response(JSON.stringify(answer.body), { status: answer.status });
        }
        return new Response(JSON.stringify(view), { status: 200 });
      }),
    );
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('reads the contact key of the SMS link and sends it with the cleaned name', async () => {
    expect(contactKeyOf('?c=Ab3_-xYz012')).toBe('Ab3_-xYz012');
    expect(contactKeyOf('?c=<script>')).toBeNull();
    expect(contactKeyOf('')).toBeNull();
    expect(await sendAck('PUBLICID', 'Rui', 'Ab3_-xYz012')).toEqual({ status: 201 });
    expect(await sendAck('PUBLICID', '', null)).toEqual({ status: 201 });
    expect(posted).toEqual([{ name: 'Rui', contact_key: 'Ab3_-xYz012' }, {}]);
    answer = { status: 409, body: { code: 'too_many_responders', detail: 'full' } };
    expect(await sendAck('PUBLICID', '', null)).toEqual({ status: 409, code: 'too_many_responders' });
  });

  it('refuses an unreadable name before sending, marks contacts, and says when the slots are full', async () => {
    render(<LivePage publicId="PUBLICID" contactKey="Ab3_-xYz012" />);
    expect(await screen.findByTestId('responders')).toHaveTextContent('Rui Costa is on the way');
    expect(screen.getByTestId('responders')).toHaveTextContent('· contact');

    const input = screen.getByLabelText('Your name (optional)');
    const onMyWay = () => screen.getByRole('button', { name: "I'm on my way" });
    fireEvent.change(input, { target: { value: '\u200B\u200B\u202E' } });
    fireEvent.click(onMyWay());
    expect(screen.getByTestId('name-problem')).toHaveTextContent('no visible characters');
    fireEvent.change(input, { target: { value: 'x'.repeat(41) } });
    fireEvent.click(onMyWay());
    expect(screen.getByTestId('name-problem')).toHaveTextContent('at most 40 characters');
    expect(posted).toEqual([]);

    answer = { status: 409, body: { code: 'too_many_responders' } };
    fireEvent.change(input, { target: { value: ' \u202ERui\u202C ' } });
    fireEvent.click(onMyWay());
    expect(await screen.findByRole('alert')).toHaveTextContent('open the link from your own SMS');
    expect(posted).toEqual([{ name: 'Rui', contact_key: 'Ab3_-xYz012' }]);

    answer = { status: 200, body: { name: 'Rui', created_at: view.created_at, contact: true, channel: 'link' } };
    fireEvent.click(onMyWay());
    expect(await screen.findByTestId('ack-sent')).toBeVisible();
  });
});
