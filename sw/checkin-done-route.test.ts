import { describe, expect, it, vi } from 'vitest';

// The routes the alert queue takes: capture the matcher the worker registers.
const routes = vi.hoisted(() => [] as { match: (options: { url: URL }) => boolean; method: string }[]);
vi.mock('workbox-routing', () => ({
  registerRoute: (match: (options: { url: URL }) => boolean, _handler: unknown, method: string) => {
    routes.push({ match, method });
  },
}));
vi.mock('workbox-background-sync', () => ({
  Queue: class {
    async shiftRequest() {
      return undefined;
    }
  },
}));
vi.mock('./messages-out', () => ({ broadcast: async () => undefined }));

const TOKEN = 't'.repeat(20);
const at = (path: string) => ({ url: new URL(path, self.location.origin) });

describe('the alert queue route', () => {
  it('takes a check-in\'s "I\'m safe" as it takes alerts, and no other check-in call', async () => {
    const { setUpAlertQueue } = await import('./alert-queue');
    setUpAlertQueue();
    const route = routes[0];
    expect(route?.method).toBe('POST');
    const takes = (path: string) => route?.match(at(path)) ?? false;
    expect(takes(`/api/emergency/public/${TOKEN}/checkins/c1/done/`)).toBe(true);
    expect(takes(`/api/emergency/public/${TOKEN}/alerts/`)).toBe(true);
    expect(takes(`/api/emergency/public/${TOKEN}/checkins/`)).toBe(false);
    expect(takes(`/api/emergency/public/${TOKEN}/checkins/c1/extend/`)).toBe(false);
    expect(takes(`/api/emergency/public/${TOKEN}/checkins/c1/location/`)).toBe(false);
  });
});
