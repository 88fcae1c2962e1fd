import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { EscalationLine } from './EscalationLine';
import { hhmm, liveStringsFor } from './live-strings';

const AT = '2026-11-23T10:05:00Z';

describe('the escalation line after sending', () => {
  it('says when the contacts are phoned if nobody answers, in each language', () => {
    const { unmount } = render(
      <EscalationLine s={liveStringsFor('pt')} escalation={{ status: 'waiting', at: AT, calls: [] }} language="pt" />,
    );
    expect(screen.getByTestId('escalation')).toHaveTextContent(
      `Se ninguém responder até às ${hhmm(AT, 'pt')}, ligamos-lhes.`,
    );
    unmount();
    render(
      <EscalationLine s={liveStringsFor('en')} escalation={{ status: 'waiting', at: AT, calls: [] }} language="en" />,
    );
    expect(screen.getByTestId('escalation')).toHaveTextContent(
      `If nobody answers by ${hhmm(AT, 'en')} we will phone them.`,
    );
  });

  it('shows each call’s state while calling, and that the calls ended', () => {
    const calls = [
      { contact_name: 'Rui', status: 'acknowledged' as const },
      { contact_name: 'Eva', status: 'no_answer' as const },
    ];
    const { rerender } = render(
      <EscalationLine s={liveStringsFor('pt')} escalation={{ status: 'calling', at: AT, calls }} language="pt" />,
    );
    expect(screen.getByTestId('escalation')).toHaveTextContent(
      'Ninguém respondeu: estamos a ligar aos seus contactos.',
    );
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Rui: vai ajudar',
      'Eva: não atendeu',
    ]);
    rerender(<EscalationLine s={liveStringsFor('en')} escalation={{ status: 'done', at: AT, calls }} language="en" />);
    expect(screen.getByTestId('escalation')).toHaveTextContent('The calls have ended.');
    expect(screen.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Rui: will help', 'Eva: no answer']);
  });

  it('shows nothing when escalation is off or an answer cancelled it', () => {
    for (const status of ['off', 'cancelled'] as const) {
      const { container, unmount } = render(
        <EscalationLine s={liveStringsFor('en')} escalation={{ status, at: null, calls: [] }} language="en" />,
      );
      expect(container).toBeEmptyDOMElement();
      unmount();
    }
  });
});
