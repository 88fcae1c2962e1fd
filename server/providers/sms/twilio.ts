import type twilio from 'twilio';
import { twilioClient, twilioSignatureCheck } from '../twilio-signature.js';
import type { ProviderStatus, SmsPort } from './port.js';

/** Twilio's MessageStatus values that change a delivery; the others (queued, accepted, sending…) do not. */
const STATUSES: Record<string, ProviderStatus> = {
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
};

export interface TwilioSmsOptions {
  accountSid: string;
  authToken: string;
  /** The sending number, unless a messaging service is used. */
  from?: string;
  messagingServiceSid?: string;
  /** Where Twilio posts status callbacks: `${APP_URL}/api/sms/status/` (read at each send: APP_URL may follow the bound port). */
  statusCallbackUrl: string | (() => string);
  /** Another HTTP client for the SDK (tests point it at a local fake of Twilio's API). */
  httpClient?: InstanceType<typeof twilio.RequestClient>;
  /** Per-request timeout (ms). */
  timeoutMs?: number;
}

/** An error Twilio returns for a request that can never succeed as sent (e.g. an invalid "To" number). */
class PermanentSmsError extends Error {
  readonly permanent = true;
}

/**
 * Sends SMS with Twilio's SDK, from a number or a messaging service, asking for status
 * callbacks that carry our delivery id (`?d=`) so a receipt finds its delivery even
 * before the message id is stored.
 */
export function createTwilioSms(options: TwilioSmsOptions): SmsPort {
  const client = twilioClient(options);
  return {
    name: 'twilio',
    async send(message) {
      const { statusCallbackUrl } = options;
      const callback = new URL(typeof statusCallbackUrl === 'function' ? statusCallbackUrl() : statusCallbackUrl);
      callback.searchParams.set('d', message.reference);
      try {
        const created = await client.messages.create({
          to: message.to,
          body: message.body,
          statusCallback: callback.toString(),
          ...(options.messagingServiceSid
            ? { messagingServiceSid: options.messagingServiceSid }
            : { from: options.from as string }),
        });
        return { providerMessageId: created.sid };
      } catch (error) {
        const rest = error as { status?: number; code?: number; message?: string };
        const reason = `Twilio${rest.code ? ` error ${rest.code}` : ''}: ${rest.message ?? String(error)}`;
        // 400 means the request itself is wrong (invalid or blocked number); retrying cannot help.
        const permanent = rest.status === 400;
        throw permanent ? new PermanentSmsError(reason) : new Error(reason);
      }
    },
    onStatus(_listener: (providerMessageId: string, status: ProviderStatus, reason?: string) => void) {
      // Twilio reports by HTTP callback to /api/sms/status/, read through statusCallbacks.
    },
    statusCallbacks: {
      verify: twilioSignatureCheck(options.authToken),
      read(form) {
        const status = STATUSES[form.MessageStatus ?? ''];
        if (!status) return null;
        return {
          status,
          ...(form.MessageSid ? { providerMessageId: form.MessageSid } : {}),
          ...(form.ErrorCode ? { reason: `Twilio error ${form.ErrorCode}` } : {}),
        };
      },
    },
  };
}
