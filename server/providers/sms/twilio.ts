import type twilio from 'twilio';
import { twilioClient, twilioSignatureCheck } from '../twilio-signature.js';
import { OPTED_OUT_CODE, type ProviderStatus, type SmsPort } from './port.js';

/** Twilio's MessageStatus values that change a delivery; the others (queued, accepted, sending…) do not. */
const STATUSES: Record<string, ProviderStatus> = {
  sent: 'sent',
  delivered: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
};

/** How far our clock and Twilio's may differ: a lookup reaches this far before the first attempt. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** Messages to one number read by a lookup, newest first: an alert's retries come minutes after it. */
const LOOKUP_LIMIT = 50;

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
  constructor(
    message: string,
    /** The recipient replied STOP to the sender (error 21610). */
    readonly optedOut = false,
  ) {
    super(message);
  }
}

/** A send that got no answer from Twilio: it may hold the message all the same. */
class UnansweredSmsError extends Error {
  readonly unanswered = true;
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
        const rest = error as { status?: number; code?: number | string; message?: string };
        const reason = `Twilio${rest.code ? ` error ${rest.code}` : ''}: ${rest.message ?? String(error)}`;
        // 400 means the request itself is wrong (invalid or blocked number); retrying cannot help.
        if (rest.status === 400) throw new PermanentSmsError(reason, Number(rest.code) === OPTED_OUT_CODE);
        // No HTTP status: the request timed out or its connection broke, maybe after Twilio took it.
        throw rest.status === undefined ? new UnansweredSmsError(reason) : new Error(reason);
      }
    },
    async find({ to, body, since }) {
      // Twilio filters by the time a message left for the carrier; a message still in its queue
      // has none yet and is not listed (so it is sent again).
      const messages = await client.messages.list({
        to,
        ...(options.messagingServiceSid ? {} : { from: options.from as string }),
        dateSentAfter: new Date(since - CLOCK_SKEW_MS),
        limit: LOOKUP_LIMIT,
      });
      const held = messages.find((message) => message.body === body && message.direction !== 'inbound');
      return held ? { providerMessageId: held.sid } : undefined;
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
