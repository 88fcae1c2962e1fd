import type { LivePosition, LiveView, MapTiles } from '../../common/api/live';
import { LIVE_POLL_MS } from '../../common/constants';

export type { LivePosition, LiveView, MapTiles };

export type Followed = { kind: 'view'; view: LiveView } | { kind: 'missing' } | { kind: 'offline' };

const base = (publicId: string) => `/api/live/${encodeURIComponent(publicId)}/`;

/** Reads the live page's data once. */
export async function fetchLive(publicId: string): Promise<Followed> {
  try {
    const response = await fetch(base(publicId), { cache: 'no-store', headers: { accept: 'application/json' } });
    if (response.status === 404) return { kind: 'missing' };
    if (!response.ok) return { kind: 'offline' };
    return { kind: 'view', view: (await response.json()) as LiveView };
  } catch {
    return { kind: 'offline' };
  }
}

/** "I'm on my way", with an optional name; resolves with the HTTP status (0 without a network). */
export async function sendAck(publicId: string, name: string): Promise<number> {
  try {
    const response = await fetch(`${base(publicId)}ack/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(name.trim() ? { name: name.trim() } : {}),
    });
    return response.status;
  } catch {
    return 0;
  }
}

/**
 * Follows an alert: server-sent events where the browser has them, polling otherwise or
 * whenever the stream is down. Stops once the alert has ended. Returns the stop function.
 */
export function followLive(
  publicId: string,
  onUpdate: (followed: Followed) => void,
  options: { pollMs?: number; useEvents?: boolean } = {},
): () => void {
  const pollMs = options.pollMs ?? LIVE_POLL_MS;
  let stopped = false;
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const deliver = (followed: Followed) => {
    if (stopped) return;
    onUpdate(followed);
    if (followed.kind === 'missing' || (followed.kind === 'view' && followed.view.state === 'ended')) stop();
  };
  // Polls while the stream is not open (no EventSource, or it is reconnecting).
  const poll = async () => {
    if (stopped) return;
    if (!source || source.readyState !== EventSource.OPEN) deliver(await fetchLive(publicId));
    if (!stopped) timer = setTimeout(() => void poll(), pollMs);
  };
  function stop() {
    stopped = true;
    source?.close();
    clearTimeout(timer);
  }

  if ((options.useEvents ?? true) && typeof EventSource === 'function') {
    source = new EventSource(`${base(publicId)}events`);
    source.addEventListener('live', (event) => {
      deliver({ kind: 'view', view: JSON.parse((event as MessageEvent<string>).data) as LiveView });
    });
  }
  void poll();
  return stop;
}
