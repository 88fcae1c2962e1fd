/** Contacts' SMS replies: the SMS provider's inbound webhook. */
import { z } from 'zod';
import { smsRepliesRoutes } from './routes.js';
import { type Contract, errorResponses, operation, SECURITY } from './shared.js';

/** Twilio's inbound message form: every field is signed as sent; these are the ones read. */
export const inboundSmsForm = z
  .looseObject({
    From: z.string().optional().describe('The sender’s number, E.164.'),
    Body: z.string().optional(),
    MessageSid: z
      .string()
      .max(64)
      .optional()
      .describe('Twilio’s id of the message: a replay of a request already taken is answered and not acted on again.'),
  })
  .meta({ id: 'TwilioInboundSms' });

export const smsRepliesApi = {
  inbound: {
    ...smsRepliesRoutes.inbound,
    ...operation('receiveSms', 'Receive a contact’s SMS reply (Twilio)', SECURITY.twilio),
    tags: ['contacts'],
    description:
      'A reply to Alerta’s number: YES/SIM/OK confirms, STOP/PARAR/CANCELAR/UNSUBSCRIBE/END/QUIT stops every SMS from Alerta (START/UNSTOP/INICIAR resumes), and during an alert 1/OK/VOU/ON MY WAY is the contact’s “I’m on my way”. The X-Twilio-Signature header is checked against the URL Twilio was given and every form field before anything is read (403 otherwise). Answers empty TwiML; Alerta’s own answers go as separate SMS. Answered only when Twilio is configured.',
    consumes: ['application/x-www-form-urlencoded'],
    body: inboundSmsForm,
    response: { 200: z.string().describe('Empty TwiML.'), ...errorResponses(403, 404) },
  },
} as const satisfies Contract<typeof smsRepliesRoutes>;
