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
  /** Places the call; resolves with the provider's call id, rejects when it could not be placed. */
  place(call: VoiceCall): Promise<{ providerCallId: string }>;
  /** Present when the provider posts callbacks (Twilio); the routes answer 404 otherwise. */
  readonly callbacks?: VoiceCallbacks;
}
