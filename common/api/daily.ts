/**
 * The daily check-in: an "I'm OK" due at a time of the owner's day every few days. Missed past
 * its grace, a real alert (`missed_daily`) goes to every contact by itself. The owner sets it
 * with their session; checking in lowers the alarm, so it takes the owner's proof (the session
 * or a device key) beside the link, or the single-use link of the reminder e-mail.
 */
import { z } from 'zod';
import { tokenParams } from './alert-request.js';
import { dailyRoutes } from './routes.js';
import { type Contract, errorResponses, operation, SECURITY } from './shared.js';

export const DAILY_STATUSES = ['off', 'waiting', 'due', 'missed', 'paused'] as const;
export type DailyStatus = (typeof DAILY_STATUSES)[number];

/** What the owner sets. */
export const dailySettings = z
  .object({
    enabled: z.boolean(),
    time: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'A time of day, HH:MM.')
      .describe('Due before this time of the owner’s day (their `time_zone`), HH:MM.'),
    every_days: z.number().int().min(1).max(7).describe('Due every 1 to 7 days.'),
    grace_minutes: z
      .number()
      .int()
      .min(1)
      .max(1440)
      .default(60)
      .describe('Minutes after the due time before the contacts are alerted (1 to 1,440).'),
    paused_until: z.iso
      .date()
      .nullable()
      .default(null)
      .describe('Nothing is due before this date (YYYY-MM-DD); the schedule resumes by itself.'),
  })
  .meta({ id: 'DailyCheckinSettings' });
export type DailySettings = z.output<typeof dailySettings>;

export const dailyView = dailySettings
  .extend({
    status: z
      .enum(DAILY_STATUSES)
      .describe('`off`; `waiting` for the next due time; `due` (the grace runs); `missed` (the alert went); `paused`.'),
    next_due_at: z.string().nullable().describe('When the next "I’m OK" is due (ISO 8601); null when off.'),
    last_ok_at: z
      .string()
      .nullable()
      .describe(
        'The last sign of life (ISO 8601): an "I’m OK", setting the schedule, an alert or check-in the owner sent.',
      ),
    alert_id: z.string().nullable().describe('The alert a missed day sent, while it is the latest news.'),
  })
  .meta({ id: 'DailyCheckin' });
export type DailyView = z.output<typeof dailyView>;

/** "I'm OK today" answered: the schedule, and how many missed-daily alerts it ended. */
export const dailyOkAnswer = dailyView
  .extend({
    alerts_ended: z.number().int().describe('Open alerts of missed daily check-ins this call ended (0 or 1, mostly).'),
    all_clear_queued: z.number().int().describe('All-clear SMS this call queued.'),
  })
  .meta({ id: 'DailyOkAnswer' });
export type DailyOkAnswer = z.output<typeof dailyOkAnswer>;

const daily = { tags: ['daily'] } as const;

export const dailyApi = {
  get: {
    ...dailyRoutes.get,
    ...operation('getDailyCheckin', 'Get the daily check-in', SECURITY.session),
    ...daily,
    description: 'The signed-in owner’s daily check-in, with its status and the next due time.',
    response: { 200: dailyView, ...errorResponses(401) },
  },
  put: {
    ...dailyRoutes.put,
    ...operation('setDailyCheckin', 'Set the daily check-in', SECURITY.session),
    ...daily,
    description:
      'Sets the schedule; setting it counts as a sign of life. Premium (or the trial) only: 402 `subscription_required`.',
    body: dailySettings,
    response: { 200: dailyView, ...errorResponses(400, 401, 402) },
  },
  status: {
    ...dailyRoutes.status,
    ...operation('getDailyStatus', 'Get the daily check-in on the emergency page', SECURITY.ownerProof),
    ...daily,
    description:
      'The daily check-in as the emergency page shows it. Needs the owner’s proof (403 `owner_proof_required`): when someone is expected to check in tells a stranger when they are alone.',
    params: tokenParams,
    response: { 200: dailyView, ...errorResponses(403, 404, 429) },
  },
  ok: {
    ...dailyRoutes.ok,
    ...operation('dailyOk', 'Check in for today: “I’m OK”', SECURITY.ownerProof),
    ...daily,
    description:
      'Checks in for today, and ends the open alert a missed daily check-in raised (its calls cancelled; with `notify`, the all-clear SMS to each contact), as “I’m safe” does. Needs the owner’s proof (403 `owner_proof_required`): a link alone cannot quiet the alarm. `at` (ISO 8601), when a queued tap is replayed, is when it was tapped (never ahead of the server’s clock).',
    params: tokenParams,
    body: z
      .object({
        at: z.iso.datetime({ offset: true }).nullish(),
        notify: z
          .boolean()
          .default(false)
          .describe('When it ends a missed daily check-in’s alert: also send each contact the all-clear SMS.'),
      })
      .meta({ id: 'DailyOk' }),
    response: { 200: dailyOkAnswer, ...errorResponses(400, 403, 404, 429) },
  },
} as const satisfies Contract<typeof dailyRoutes>;
