/**
 * The owner's open alerts (`GET /api/emergency/public/{token}/open-alerts/`): every real alert of
 * theirs still active, pressed or raised by the server, so that the emergency page and the app
 * can end each with "I'm safe". Only with the owner's proof; never a duress alert.
 */
import { z } from 'zod';
import { tokenParams } from './alert-request.js';
import { alertView } from './alerts.js';
import { responder } from './live.js';
import { openAlertsRoutes } from './routes.js';
import { type Contract, errorResponses, operation, SECURITY } from './shared.js';

export const openAlert = alertView
  .extend({
    since: z
      .string()
      .nullable()
      .describe(
        'Since when there has been no sign: the last check-in before a missed daily check-in, the time a missed check-in was due; null otherwise.',
      ),
    live_url: z.string().describe('The live page the contacts follow.'),
    responders: z.array(responder).describe('Who said they are on the way, first first.'),
  })
  .meta({ id: 'OpenAlert' });

export type OpenAlert = z.output<typeof openAlert>;

export const openAlertsApi = {
  list: {
    ...openAlertsRoutes.list,
    ...operation('listOpenAlerts', 'List the owner’s open alerts', SECURITY.ownerProof),
    tags: ['alerts'],
    description:
      'Every real alert of the owner’s still active (newest first): pressed, a missed check-in or a missed daily check-in, with its deliveries, calls and who is on the way, for “I’m safe”. Never a duress alert (someone may be watching the page). Only with the owner’s proof (`Authorization: Bearer` of the owner’s session or `X-Alerta-Device-Key`): else 403 `owner_proof_required` (a link alone never learns the ids of the owner’s alerts).',
    params: tokenParams,
    response: { 200: z.array(openAlert), ...errorResponses(403, 404, 429) },
  },
} as const satisfies Contract<typeof openAlertsRoutes>;
