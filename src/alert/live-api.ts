import type { ErrorCode } from '../../common/api/errors';
import type { SenderLive } from '../../common/api/live';
import { pathOf } from '../../common/api/paths';
import { liveRoutes } from '../../common/api/routes';
import { newKey, ownerProof } from './api';
import type { Fix } from './geo';

/** What the sender's page learns about its alert's live side. */
export type { SenderLive };

/** What a change answered: the HTTP status (0 when the request never reached anyone) and the error's code. */
export interface Outcome {
  status: number;
  code?: string;
}

/** The refusal of a change only the owner may make (common/api/errors.ts): the page asks the owner to sign in. */
export const needsOwnerProof = (outcome: Outcome) =>
  outcome.status === 403 && outcome.code === ('owner_proof_required' satisfies ErrorCode);

async function outcomeOf(url: string, init: RequestInit): Promise<Outcome> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    return { status: 0 };
  }
  if (response.ok) return { status: response.status };
  const body = (await response.json().catch(() => null)) as { code?: unknown } | null;
  return typeof body?.code === 'string' ? { status: response.status, code: body.code } : { status: response.status };
}

/**
 * Sends one position; 202 means the service worker queued it for when the network returns. On
 * the owner's proven alert it needs the owner's proof (403 `owner_proof_required` without).
 */
export const postPosition = (token: string, alertId: string, fix: Fix) =>
  outcomeOf(pathOf(liveRoutes.position, { token, id: alertId }), {
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

/** "I'm safe"; `notify` also sends the all-clear SMS. Only with the owner's proof (403 `owner_proof_required` without). */
export const resolveAlert = (token: string, alertId: string, notify: boolean) =>
  outcomeOf(pathOf(liveRoutes.resolve, { token, id: alertId }), {
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
