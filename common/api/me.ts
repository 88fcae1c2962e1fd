/** The signed-in owner's own record: what `/api/users/me/` answers and what PATCH may change. */
import { z } from 'zod';
import { COUNTDOWN_CHOICES, ESCALATION_SECONDS, LANGUAGES } from '../constants.js';
import { canonicalTimeZone, normaliseDisplayName, PROFILE_MESSAGES, validateDisplayName } from '../profile-rules.js';

const choice = <T extends readonly (string | number)[]>(values: T) => z.literal(values);

/** Texts of the check-in PINs' refusals. */
export const PIN_MESSAGES = {
  invalid: 'A PIN has 4 to 8 digits.',
  same: 'The duress PIN must differ from the check-in PIN.',
} as const;

/** The text of a refused escalation delay. */
export const ESCALATION_MESSAGE = `Choose 0 (never) or ${ESCALATION_SECONDS.min} to ${ESCALATION_SECONDS.max} seconds.`;

const pin = z
  .string()
  .nullable()
  .optional()
  .refine((value) => value == null || /^\d{4,8}$/.test(value), {
    message: PIN_MESSAGES.invalid,
    params: { code: 'invalid_pin' },
  });

/** `PATCH /api/users/me/`: any of these; other fields are read-only and ignored. */
export const meUpdate = z
  .object({
    language: choice(LANGUAGES).optional(),
    alert_countdown_seconds: choice(COUNTDOWN_CHOICES).optional().describe('Seconds before the alert goes.'),
    display_name: z
      .string()
      .nullable()
      .optional()
      .refine((name) => validateDisplayName(name) !== 'setup.invalid_display_name', {
        message: PROFILE_MESSAGES.invalidDisplayName,
        params: { code: 'invalid_display_name' },
      })
      .refine((name) => validateDisplayName(name) !== 'setup.display_name_link', {
        message: PROFILE_MESSAGES.displayNameLink,
        params: { code: 'display_name_link' },
      })
      .transform((name) => (name === undefined ? undefined : normaliseDisplayName(name) || null))
      .describe('The name contacts see; empty or null shows the username.'),
    time_zone: z
      .string()
      .nullable()
      .optional()
      .transform((zone, ctx) => {
        if (zone === undefined || zone === null) return zone;
        const known = canonicalTimeZone(zone);
        if (known) return known;
        ctx.addIssue({
          code: 'custom',
          message: PROFILE_MESSAGES.invalidTimeZone(zone),
          params: { code: 'invalid_time_zone' },
        });
        return z.NEVER;
      })
      .describe('IANA time zone of SMS times (Europe/Lisbon); null is UTC.'),
    checkin_pin: pin.describe('4 to 8 digits that end a check-in; null clears it. Stored hashed.'),
    duress_pin: pin.describe(
      'A different 4 to 8 digits: ending a check-in with it looks the same but alerts the contacts. Null clears it.',
    ),
    escalation_after_seconds: z
      .number()
      .int()
      .nullable()
      .optional()
      .refine(
        (seconds) =>
          seconds == null || seconds === 0 || (seconds >= ESCALATION_SECONDS.min && seconds <= ESCALATION_SECONDS.max),
        { message: ESCALATION_MESSAGE, params: { code: 'invalid_escalation_delay' } },
      )
      .describe(
        'Seconds a real alert waits for an answer before the contacts are phoned: 0 never, else 60 to 1800; null: the server default.',
      ),
  })
  .refine((update) => !update.checkin_pin || update.checkin_pin !== update.duress_pin, {
    message: PIN_MESSAGES.same,
    path: ['duress_pin'],
    params: { code: 'same_pin' },
  })
  .meta({ id: 'MeUpdate' });

export type MeUpdate = z.input<typeof meUpdate>;

export const profile = z
  .object({
    has_premium: z.boolean().describe('An active subscription of either plan, or a trial in progress.'),
    is_in_trial: z.boolean(),
    trial_days_left: z.number().int(),
    trial_start: z.string().nullable(),
    has_used_trial: z.boolean(),
    plan: z.enum(['basic', 'premium']).nullable(),
    contact_limit: z.number().int(),
    gps_enabled: z.boolean(),
    alert_countdown_seconds: z.number().int(),
    token: z.string().nullable(),
  })
  .meta({ id: 'Profile' });

export const me = z
  .object({
    id: z.string(),
    username: z.string(),
    email: z.string().nullable(),
    language: z.enum(LANGUAGES),
    display_name: z.string().nullable().describe('The name contacts see; null when the username is shown.'),
    time_zone: z.string().nullable().describe('IANA time zone of SMS times; null for UTC.'),
    token: z.string().nullable().describe('The personal alert token (also on the profile).'),
    has_checkin_pin: z.boolean().describe('A check-in PIN is set: "I’m safe" needs it.'),
    has_duress_pin: z.boolean(),
    escalation_after_seconds: z
      .number()
      .int()
      .describe('Seconds a real alert waits for an answer before the contacts are phoned; 0: never.'),
    profile,
  })
  .meta({ id: 'Me' });

export type Me = z.output<typeof me>;
export type Profile = z.output<typeof profile>;
