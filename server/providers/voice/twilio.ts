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
      const created = await client.calls.create({
        to: call.to,
        from: options.from,
        twiml: response.toString(),
        statusCallback: callback('status', call.reference),
        statusCallbackMethod: 'POST',
        statusCallbackEvent: ['ringing', 'answered', 'completed'],
      });
      return { providerCallId: created.sid };
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
