import type { DevOutbox } from '../outbox.js';
import type { VoicePort } from './port.js';

/** The provider's id of a call the outbox captured under our call id. */
const outboxCallId = (reference: string) => `CA-outbox-${reference}`;

/**
 * The embedded default: captures every call in the dev outbox, ringing, under our own call id.
 * The outbox page's "press 1" (`POST /dev/outbox/calls/{id}/digits/`) plays the callee pressing
 * keys through the same code as Twilio's gather callback.
 */
export function createOutboxVoice(outbox: DevOutbox, now: () => number): VoicePort {
  return {
    name: 'outbox',
    async place(call) {
      outbox.addCall({
        id: call.reference,
        to: call.to,
        say: call.say,
        language: call.language,
        status: 'ringing',
        placed_at: new Date(now()).toISOString(),
      });
      return { providerCallId: outboxCallId(call.reference) };
    },
    async lookup({ to, since }) {
      // The outbox keeps its calls newest first, as a provider lists them.
      return outbox.calls
        .filter((call) => call.to === to && Date.parse(call.placed_at) >= since)
        .map((call) => ({ providerCallId: outboxCallId(call.id) }));
    },
  };
}
