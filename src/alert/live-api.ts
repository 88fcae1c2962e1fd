import type { SenderLive } from '../../common/api/live';
import { pathOf } from '../../common/api/paths';
import { liveRoutes } from '../../common/api/routes';
import { newKey, ownerProof } from './api';
import type { Fix } from './geo';

/** What the sender's page learns about its alert's live side. */
export type { SenderLive };

/** The HTTP status, or 0 when the request never reached anyone. */
async function status(url: string, init: RequestInit): Promise<number> {
  try {
    return (await fetch(url, init)).status;
  } catch {
    return 0;
  }
}

/** Sends one position; 202 means the service worker queued it for when the network returns. */
export const postPosition = (token: string, alertId: string, fix: Fix) =>
  status(pathOf(liveRoutes.position, { token, id: alertId }), {
    method: liveRoutes.position.method,
    // Its own key, so the service worker queues every update made offline, not just the first.
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'idempotency-key': newKey(),
      ...ownerProof(),
    },
    body: JSON.stringify(fix),
  });

/** "I'm safe"; `notify` also sends the all-clear SMS. */
export const resolveAlert = (token: string, alertId: string, notify: boolean) =>
  status(pathOf(liveRoutes.resolve, { token, id: alertId }), {
    method: liveRoutes.resolve.method,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...ownerProof() },
    body: JSON.stringify({ notify }),
  });

/** The alert's live state, or null without a network. */
export async function fetchSenderLive(token: string, alertId: string): Promise<SenderLive | null> {
  try {
    const response = await fetch(pathOf(liveRoutes.sender, { token, id: alertId }), {
      method: liveRoutes.sender.method,
      cache: 'no-store',
      headers: { accept: 'application/json', ...ownerProof() },
    });
    return response.ok ? ((await response.json()) as SenderLive) : null;
  } catch {
    return null;
  }
}
