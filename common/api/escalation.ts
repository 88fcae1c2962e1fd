/**
 * Escalation by phone: how far it got, as each alert's answer shows it, and the voice
 * provider's callbacks on the calls (Twilio's gather and status, as forms).
 */
import { z } from 'zod';
import { voiceRoutes } from './routes.js';
import { type Contract, errorResponses, noContent, operation, SECURITY } from './shared.js';

/** Where a call to a contact stands. */
export const CALL_STATUSES = ['queued', 'ringing', 'answered', 'acknowledged', 'no_answer', 'busy', 'failed'] as const;
export type CallState = (typeof CALL_STATUSES)[number];

/** `waiting` for an answer; `calling` the contacts; `done` every call ended; `cancelled` by an answer or the all-clear; `off` for tests and owners who turned it off. */
export const ESCALATION_STATUSES = ['waiting', 'calling', 'done', 'cancelled', 'off'] as const;
export type EscalationStatus = (typeof ESCALATION_STATUSES)[number];

export const escalationView = z
  .object({
    status: z.enum(ESCALATION_STATUSES),
    at: z
      .string()
      .nullable()
      .describe('When the contacts are phoned if nobody has said "I’m on my way" (or were); null when off.'),
    calls: z
      .array(z.object({ contact_name: z.string(), status: z.enum(CALL_STATUSES) }))
      .describe('One per contact called.'),
  })
  .meta({ id: 'Escalation' });

export type EscalationView = z.output<typeof escalationView>;

export const voiceForm = z
  .looseObject({
    CallSid: z.string().optional(),
    CallStatus: z.string().optional().describe('`ringing`, `in-progress`, `completed`, `busy`, `no-answer`, `failed`.'),
    Digits: z.string().optional().describe('The keys the contact pressed (gather).'),
    ErrorCode: z.string().optional(),
  })
  .meta({ id: 'TwilioVoice' });

export const voiceQuery = z.looseObject({ c: z.string().optional().describe('Our call id.') });

const twilio =
  'The X-Twilio-Signature header is checked against the URL Twilio was given and every form field before anything is read. Answered only when Twilio is configured.';

export const voiceApi = {
  gather: {
    ...voiceRoutes.gather,
    ...operation('receiveCallKeys', 'Receive the keys a called contact pressed (Twilio)', SECURITY.twilio),
    tags: ['alerts'],
    description: `The keys a called contact pressed: 1 says they will help, recorded as their "I’m on my way". Answers TwiML. ${twilio}`,
    consumes: ['application/x-www-form-urlencoded'],
    querystring: voiceQuery,
    body: voiceForm,
    response: { 200: z.string().describe('TwiML.'), ...errorResponses(403, 404) },
  },
  status: {
    ...voiceRoutes.status,
    ...operation('receiveCallStatus', 'Receive an escalation call’s status (Twilio)', SECURITY.twilio),
    tags: ['alerts'],
    description: `Twilio’s status callbacks of an escalation call. ${twilio}`,
    consumes: ['application/x-www-form-urlencoded'],
    querystring: voiceQuery,
    body: voiceForm,
    response: { 204: noContent, ...errorResponses(403, 404) },
  },
} as const satisfies Contract<typeof voiceRoutes>;
