import type { LivePosition, LiveView, MapTiles } from '../../common/api/live';
import { pathOf } from '../../common/api/paths';
import { liveRoutes } from '../../common/api/routes';
import { LIVE_POLL_MS } from '../../common/constants';

export type { LivePosition, LiveView, MapTiles };

export type Followed = { kind: 'view'; view: LiveView } | { kind: 'missing' } | { kind: 'offline' };

/** Reads the live page's data once; with a contact's key, their own answer too (`you`). */
export async function fetchLive(publicId: string, contactKey?: string | null): Promise<Followed> {
  const query = contactKey ? `?${new URLSearchParams({ c: contactKey })}` : '';
  try {
    const response = await fetch(`${pathOf(liveRoutes.view, { publicId })}${query}`, {
      method: liveRoutes.view.method,
      cache: 'no-store',
      headers: { accept: 'application/json' },
    });
    if (response.status === 404) return { kind: 'missing' };
    if (!response.ok) return { kind: 'offline' };
    return { kind: 'view', view: (await response.json()) as LiveView };
  } catch {
    return { kind: 'offline' };
  }
}

/** How "I'm on my way" went: the HTTP status (0 without a network) and the error code, if any. */
export interface AckResult {
  status: number;
  code?: string;
}

/**
 * "I'm on my way", with an optional name (already checked with common/responder-name.ts) and
 * the contact key of the SMS's own link, when the page was opened from one.
 */
export async function sendAck(publicId: string, name: string, contactKey: string | null = null): Promise<AckResult> {
  try {
    const response = await fetch(pathOf(liveRoutes.ack, { publicId }), {
      method: liveRoutes.ack.method,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ ...(name ? { name } : {}), ...(contactKey ? { contact_key: contactKey } : {}) }),
    });
    if (response.ok) return { status: response.status };
    const body = (await response.json().catch(() => ({}))) as { code?: unknown };
    return { status: response.status, ...(typeof body.code === 'string' ? { code: body.code } : {}) };
  } catch {
    return { status: 0 };
  }
}

/** The contact key of the link the page was opened with (`/a/{public_id}?c={key}`), if any. */
export function contactKeyOf(search: string): string | null {
  const key = new URLSearchParams(search).get('c');
  return key && /^[A-Za-z0-9_-]{8,64}$/.test(key) ? key : null;
}

/**
 * Follows an alert: server-sent events where the browser has them, polling otherwise or
 * whenever the stream is down. Stops once the alert has ended. Returns the stop function.
 */
export function followLive(
  publicId: string,
  onUpdate: (followed: Followed) => void,
  options: { pollMs?: number; useEvents?: boolean; contactKey?: string | null } = {},
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
    if (!source || source.readyState !== EventSource.OPEN) deliver(await fetchLive(publicId, options.contactKey));
    if (!stopped) timer = setTimeout(() => void poll(), pollMs);
  };
  function stop() {
    stopped = true;
    source?.close();
    clearTimeout(timer);
  }

  if ((options.useEvents ?? true) && typeof EventSource === 'function') {
    source = new EventSource(pathOf(liveRoutes.events, { publicId }));
    source.addEventListener('live', (event) => {
      const view = JSON.parse((event as MessageEvent<string>).data) as LiveView;
      // The stream is the same for everyone: a contact's own answer is read with their key.
      if (options.contactKey && view.state !== 'ended') {
        void fetchLive(publicId, options.contactKey).then((read) =>
          deliver(read.kind === 'view' ? read : { kind: 'view', view }),
        );
      } else deliver({ kind: 'view', view });
    });
  }
  void poll();
  return stop;
}
