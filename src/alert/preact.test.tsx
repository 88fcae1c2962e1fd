import { render, screen } from '@testing-library/react';
import { options, type VNode } from 'preact';
import * as compat from 'preact/compat';
import * as compatClient from 'preact/compat/client';
import * as React from 'react';
import * as ReactDOMClient from 'react-dom/client';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { LivePage } from '../live/LivePage';
import { OwnerSignIn } from './SignIn';

/** The live page's event stream, which it closes when it unmounts. */
class FakeEventSource {
  static readonly OPEN = 1;
  static closed = 0;
  readyState = 0;
  addEventListener() {}
  close() {
    FakeEventSource.closed++;
  }
}

// The build gives these pages preact/compat for React (preactForEmergencyPage); so must their tests.
describe('the emergency and live pages under test', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });
  // Preact defers an unmounted component's effect cleanups to the next frame: the shared cleanup
  // after each test must still run them, or the page's timers and streams outlive its test.
  afterAll(() => {
    expect(FakeEventSource.closed).toBe(1);
  });

  it('get preact/compat for react and react-dom/client, as in the build', () => {
    expect(React.createElement).toBe(compat.createElement);
    expect(React.useState).toBe(compat.useState);
    expect(ReactDOMClient.createRoot).toBe(compatClient.createRoot);
  });

  it('are rendered by Preact, JSX and testing library included', () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    vi.stubGlobal(
      'fetch',
      vi.fn(() => new Promise<Response>(() => undefined)),
    );
    const rendered = new Set<unknown>();
    const previous = options.diffed;
    options.diffed = (vnode: VNode) => {
      rendered.add(vnode.type);
      previous?.(vnode);
    };
    try {
      render(
        <>
          <OwnerSignIn language="en" />
          <LivePage publicId="PUBLICID" />
        </>,
      );
    } finally {
      options.diffed = previous;
    }
    expect(screen.getByTestId('owner-sign-in')).toHaveTextContent('Is this your phone?');
    expect(screen.getByRole('status')).toHaveTextContent('A carregar');
    expect(rendered).toContain(OwnerSignIn);
    expect(rendered).toContain(LivePage);
    expect(FakeEventSource.closed).toBe(0);
  });
});
