import type { EmergencyPage } from '../../../common/api/alerts.js';
import { shownName } from '../../../common/profile-rules.js';
import { alertMessage } from '../../../common/sms-text.js';
import { alertedContacts } from '../contacts/index.js';
import { activeOwner, type OwnerDeps, ownerLanguage } from '../owner/index.js';

/** Digits a masked number shows: enough to tell two contacts apart, not to call either. */
const SHOWN_DIGITS = 3;

/**
 * A phone number as a link holder sees it: a fixed run of dots and its last 3 digits
 * ("•••••••678"), whatever its length, so not even the length is told.
 */
export const maskedNumber = (phone: string) => `•••••••${phone.replace(/\D/g, '').slice(-SHOWN_DIGITS)}`;

/**
 * What the emergency page caches: owner, settings, the contacts alerted and the SMS texts
 * without a position. The contacts' full numbers (for "send from my phone") only with the
 * owner's proof (`fullNumbers`); anyone else holding the link sees names and masked numbers.
 */
export async function emergencyPage(
  deps: OwnerDeps & { push: { publicKey: string } },
  token: string,
  { fullNumbers = false }: { fullNumbers?: boolean } = {},
): Promise<EmergencyPage> {
  const { user, profile } = await activeOwner(deps, token);
  const contacts = await alertedContacts(deps.db, user.id, profile.contact_limit);
  const base = {
    language: ownerLanguage(user),
    ownerName: shownName(user),
    timeZone: user.time_zone,
    location: null,
    locationError: profile.gps_enabled ? undefined : ('not_in_plan' as const),
  };
  return {
    owner_name: shownName(user),
    time_zone: user.time_zone,
    language: ownerLanguage(user),
    gps_enabled: profile.gps_enabled,
    countdown_seconds: user.alert_countdown_seconds,
    contacts: contacts.map((c) => ({
      id: c.id,
      name: c.name,
      phone_number: fullNumbers ? c.phone_number : maskedNumber(c.phone_number),
    })),
    numbers_masked: !fullNumbers,
    messages: { real: alertMessage({ ...base, mode: 'real' }), test: alertMessage({ ...base, mode: 'test' }) },
    checkin_pin: user.checkin_pin_hash !== null,
    push_public_key: deps.push.publicKey,
  };
}
