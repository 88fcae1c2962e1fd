import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WORKER_READY_WAIT_MS } from '../../common/constants';

// The page's worker registration as each engine has been seen to leave it: the Workbox of
// workbox-window replaced by one whose register() this file settles (or never settles), and
// navigator.serviceWorker by one whose getRegistration() answers what the test says.

interface FakeWorkbox {
  emit(type: string): void;
}
const workboxes: FakeWorkbox[] = [];
let register: () => Promise<unknown>;

vi.mock('workbox-window', () => ({
  Workbox: class {
    private readonly listeners = new Map<string, (event: object) => void>();
    constructor() {
      workboxes.push(this);
    }
    addEventListener(type: string, listener: (event: object) => void) {
      this.listeners.set(type, listener);
    }
    register() {
      return register();
    }
    emit(type: string) {
      this.listeners.get(type)?.({ isUpdate: false });
    }
  },
}));

const never = () => new Promise<never>(() => undefined);

function fakeContainer(getRegistration: () => Promise<unknown>) {
  Object.defineProperty(navigator, 'serviceWorker', {
    configurable: true,
    value: { controller: null, getRegistration, ready: never(), addEventListener() {}, removeEventListener() {} },
  });
}

async function startedClient() {
  vi.resetModules();
  const client = await import('./sw-client');
  const heard: boolean[] = [];
  client.onOfflineUnavailable((unavailable) => heard.push(unavailable));
  client.startServiceWorker();
  return { client, heard };
}

describe('the page knows when it is not available offline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    workboxes.length = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
    Reflect.deleteProperty(navigator, 'serviceWorker');
  });

  it('says so at once when the worker cannot be registered', async () => {
    register = () => Promise.reject(new Error('this worker cannot start'));
    fakeContainer(async () => undefined);
    const { client, heard } = await startedClient();
    await vi.advanceTimersByTimeAsync(0);
    expect(client.offlineUnavailable()).toBe(true);
    expect(heard).toEqual([true]);
  });

  it('tells a part of the page that listens only after the refusal', async () => {
    register = () => Promise.reject(new Error('this worker cannot start'));
    fakeContainer(async () => undefined);
    const { client } = await startedClient();
    await vi.advanceTimersByTimeAsync(0);
    const late: boolean[] = [];
    client.onOfflineUnavailable((unavailable) => late.push(unavailable));
    expect(late).toEqual([true]);
  });

  it('says so when a registration that never settles leaves a worker installing for ever, and takes it back if it starts', async () => {
    register = never;
    fakeContainer(async () => ({ installing: { state: 'installing' }, waiting: null, active: null }));
    const { client, heard } = await startedClient();
    await vi.advanceTimersByTimeAsync(WORKER_READY_WAIT_MS - 1);
    expect(client.offlineUnavailable()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(client.offlineUnavailable()).toBe(true);
    workboxes[0]?.emit('activated');
    expect(client.offlineUnavailable()).toBe(false);
    expect(heard).toEqual([true, false]);
  });

  it('says so when getRegistration() never answers', async () => {
    register = never;
    fakeContainer(never);
    const { client } = await startedClient();
    await vi.advanceTimersByTimeAsync(WORKER_READY_WAIT_MS);
    expect(client.offlineUnavailable()).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(client.offlineUnavailable()).toBe(true);
  });

  it('says nothing while a worker that did install waits or runs', async () => {
    register = never;
    fakeContainer(async () => ({ installing: null, waiting: { state: 'installed' }, active: null }));
    const { client, heard } = await startedClient();
    await vi.advanceTimersByTimeAsync(WORKER_READY_WAIT_MS * 3);
    expect(client.offlineUnavailable()).toBe(false);
    expect(heard).toEqual([]);
  });
});
