import type { EmergencyPage } from '../../../common/api/alerts.js';
import { shownName } from '../../../common/profile-rules.js';
import { alertMessage } from '../../../common/sms-text.js';
import { alertedContacts } from '../contacts/repository.js';
import { activeOwner, type OwnerDeps, ownerLanguage } from './owners.js';

/** What the emergency page caches: owner, settings, the contacts alerted and the SMS texts without a position. */
export async function emergencyPage(
  deps: OwnerDeps & { push: { publicKey: string } },
  token: string,
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
    contacts: contacts.map((c) => ({ id: c.id, name: c.name, phone_number: c.phone_number })),
    messages: { real: alertMessage({ ...base, mode: 'real' }), test: alertMessage({ ...base, mode: 'test' }) },
    checkin_pin: user.checkin_pin_hash !== null,
    push_public_key: deps.push.publicKey,
  };
}
