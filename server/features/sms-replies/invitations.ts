import { REINVITE_AFTER_MS } from '../../../common/constants.js';
import { shownName } from '../../../common/profile-rules.js';
import { invitationMessage } from '../../../common/sms-text-replies.js';
import type { Contact, Db, User } from '../../db/schema.js';
import type { Deps } from '../../lib/deps.js';
import { DAY } from '../../lib/time.js';
import { ownerLanguage } from '../owner/index.js';
import { queueNotice } from './notices.js';
import { claimInvitation, lockNumber, noticesSince, optedOutAmong } from './repository.js';

/** Invitations one number may get in a day, from all accounts together. */
export const INVITATIONS_PER_NUMBER_PER_DAY = 3;

/** What came of an invitation: queued, or why not. */
export type InvitationOutcome = 'invited' | 'too_soon' | 'opted_out' | 'number_busy';

/**
 * Queues the invitation SMS to one of the owner's contacts, in the caller's transaction: at
 * most one per (account, number) unless asked again a week later, at most
 * `INVITATIONS_PER_NUMBER_PER_DAY` a day to one number across accounts, none to a number that
 * said STOP. The caller kicks the jobs after commit when it was queued.
 */
export async function inviteContact(
  db: Db,
  deps: Pick<Deps, 'config' | 'dialect'>,
  invitation: { user: User; contact: Pick<Contact, 'id' | 'phone_number' | 'invited_at'>; now: number },
): Promise<InvitationOutcome> {
  const { user, contact, now } = invitation;
  const phone = contact.phone_number;
  if (contact.invited_at !== null && now - Number(contact.invited_at) < REINVITE_AFTER_MS) return 'too_soon';
  if ((await optedOutAmong(db, [phone])).size > 0) return 'opted_out';
  await lockNumber(db, deps.dialect, phone);
  if ((await noticesSince(db, phone, 'invitation', now - DAY)) >= INVITATIONS_PER_NUMBER_PER_DAY) {
    return 'number_busy';
  }
  const body = invitationMessage({
    language: ownerLanguage(user),
    ownerName: shownName(user),
    privacyUrl: `${deps.config.APP_URL}/privacy`,
  });
  // Claimed by a conditional update: of two requests at once, which both read the contact as
  // not invited this week, only the one whose update took a row queues the SMS.
  if (!(await claimInvitation(db, contact.id, now, REINVITE_AFTER_MS))) return 'too_soon';
  await queueNotice(db, { userId: user.id, phone, kind: 'invitation', body, now });
  return 'invited';
}
