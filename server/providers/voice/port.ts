import type { CallStatus } from '../../db/schema.js';

/** A call to place: the words spoken (twice), in which voice, and our call id for callbacks. */
export interface VoiceCall {
  to: string;
  say: string;
  /** The voice's language tag (`pt-PT`, `en-GB`). */
  language: string;
  /** Our call id: the provider's callbacks carry it. */
  reference: string;
}

/**
 * What `VoicePort.lookup` looks for: calls to `to` from our number placed at or after `since`
 * (epoch ms, our clock: the start of the first attempt at this call).
 */
export interface CallLookup {
  to: string;
  since: number;
}

/** A call's progress, read from the provider's status callback. */
export interface CallReport {
  status: CallStatus;
  providerCallId?: string;
  reason?: string;
}

/** The provider's callbacks on a call (`POST /api/voice/gather/` and `/api/voice/status/`): the adapter owns their signature check. */
export interface VoiceCallbacks {
  /** True only when the callback is signed by the provider, for `url` (as the provider was given it) and `form`. */
  verify(callback: { url: string; headers: Record<string, unknown>; form: Record<string, string> }): boolean;
  /** The progress a verified status form carries; null for one that changes nothing (queued, initiated…). */
  status(form: { CallSid?: string; CallStatus?: string; ErrorCode?: string }): CallReport | null;
  /** What the call says back after the keys were read (TwiML for Twilio). */
  reply(say: string, language: string): string;
}

/** Places voice calls; the escalation never knows which adapter runs. */
export interface VoicePort {
  readonly name: 'outbox' | 'twilio';
  /**
   * Places the call; resolves with the provider's call id, rejects when it could not be placed
   * (an error with `permanent: true`, e.g. an invalid number, is not retried; any other may come
   * after the provider took the call, so a retry looks it up first).
   */
  place(call: VoiceCall): Promise<{ providerCallId: string }>;
  /**
   * The calls the provider holds to `to` since `since`, newest first, those still in its queue
   * included: asked before a call whose earlier attempt failed is placed again. Which of them is
   * this call's the escalation decides (one call per alert and number). Rejects when the
   * provider cannot tell.
   */
  lookup(lookup: CallLookup): Promise<{ providerCallId: string }[]>;
  /** Present when the provider posts callbacks (Twilio); the routes answer 404 otherwise. */
  readonly callbacks?: VoiceCallbacks;
}
