import twilio from 'twilio';
import type { CallStatus } from '../../db/schema.js';
import { twilioClient, twilioSignatureCheck } from '../twilio-signature.js';
import type { VoicePort } from './port.js';

type SayLanguage =
  NonNullable<Parameters<InstanceType<typeof twilio.twiml.VoiceResponse>['say']>[0]> extends infer A
    ? A extends { language?: infer L }
      ? L
      : never
    : never;

/** Twilio's CallStatus values that move a call; queued and initiated do not. */
const STATUSES: Record<string, CallStatus> = {
  ringing: 'ringing',
  'in-progress': 'answered',
  answered: 'answered',
  completed: 'no_answer',
  busy: 'busy',
  'no-answer': 'no_answer',
  failed: 'failed',
  canceled: 'failed',
};

/** How far our clock and Twilio's may differ: a lookup reaches this far before the first attempt. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** Calls to one number read by each list of a lookup, newest first. */
const LOOKUP_LIMIT = 20;

/** An error Twilio returns for a call that can never be placed as asked (e.g. an invalid "To" number). */
class PermanentCallError extends Error {
  readonly permanent = true;
}

export interface TwilioVoiceOptions {
  accountSid: string;
  authToken: string;
  from: string;
  /** `${APP_URL}/api/voice/`, read at each call: APP_URL may follow the bound port. */
  callbackBase: string | (() => string);
  /** Another HTTP client for the SDK (tests point it at a local fake of Twilio's API). */
  httpClient?: InstanceType<typeof twilio.RequestClient>;
  timeoutMs?: number;
}

/**
 * Places calls with Twilio's SDK: TwiML that says the words twice inside a one-key `<Gather>`,
 * the gather's action and the status callbacks on our API, each carrying our call id (`?c=`).
 * Completed is read as "no answer": a call that was answered is `answered` already, and the
 * repository never moves it back.
 */
export function createTwilioVoice(options: TwilioVoiceOptions): VoicePort {
  const client = twilioClient(options);
  const callback = (path: 'gather' | 'status', reference: string) => {
    const base = typeof options.callbackBase === 'function' ? options.callbackBase() : options.callbackBase;
    const url = new URL(`${base.replace(/\/$/, '')}/${path}/`);
    url.searchParams.set('c', reference);
    return url.toString();
  };
  return {
    name: 'twilio',
    async place(call) {
      const response = new twilio.twiml.VoiceResponse();
      const language = call.language as SayLanguage;
      const gather = response.gather({ numDigits: 1, action: callback('gather', call.reference), method: 'POST' });
      gather.say({ language }, call.say);
      gather.pause({ length: 1 });
      gather.say({ language }, call.say);
      try {
        const created = await client.calls.create({
          to: call.to,
          from: options.from,
          twiml: response.toString(),
          statusCallback: callback('status', call.reference),
          statusCallbackMethod: 'POST',
          statusCallbackEvent: ['ringing', 'answered', 'completed'],
        });
        return { providerCallId: created.sid };
      } catch (error) {
        const rest = error as { status?: number; code?: number | string; message?: string };
        const reason = `Twilio${rest.code ? ` error ${rest.code}` : ''}: ${rest.message ?? String(error)}`;
        // 400 means the request itself is wrong (invalid or blocked number); retrying cannot help.
        throw rest.status === 400 ? new PermanentCallError(reason) : new Error(reason);
      }
    },
    async lookup({ to, since }) {
      // Twilio filters by the time a call started ringing out; a call still in its queue (calls
      // leave it at the account's calls-per-second pace) has none yet, so it is asked for apart.
      const mine = { to, from: options.from, limit: LOOKUP_LIMIT };
      const [started, queued] = await Promise.all([
        client.calls.list({ ...mine, startTimeAfter: new Date(since - CLOCK_SKEW_MS) }),
        client.calls.list({ ...mine, status: 'queued' }),
      ]);
      const floor = since - CLOCK_SKEW_MS;
      const sids = [...queued, ...started]
        .filter((call) => call.direction !== 'inbound' && (call.dateCreated?.getTime() ?? floor) >= floor)
        .map((call) => call.sid);
      return [...new Set(sids)].map((sid) => ({ providerCallId: sid }));
    },
    callbacks: {
      verify: twilioSignatureCheck(options.authToken),
      status(form) {
        const status = STATUSES[form.CallStatus ?? ''];
        if (!status) return null;
        return {
          status,
          ...(form.CallSid ? { providerCallId: form.CallSid } : {}),
          ...(form.ErrorCode ? { reason: `Twilio error ${form.ErrorCode}` } : {}),
        };
      },
      reply(say, language) {
        const response = new twilio.twiml.VoiceResponse();
        response.say({ language: language as SayLanguage }, say);
        return response.toString();
      },
    },
  };
}
