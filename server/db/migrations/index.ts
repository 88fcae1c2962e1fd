import type { Migration } from 'kysely/migration';
import * as initial from './2026112201-initial.js';
import * as billingSync from './2026112202-billing-sync.js';
import * as live from './2026112203-live.js';
import * as abuseLimits from './2026112310-abuse-limits.js';
import * as contactPriority from './2026112320-contact-priority.js';
import * as displayName from './2026112330-display-name.js';
import * as ownerProof from './2026112501-owner-proof.js';
import * as mailReceipts from './2026112502-mail-receipts.js';
import * as loginDevices from './2026112503-login-devices.js';
import * as liveResponders from './2026112504-live-responders.js';
import * as timers from './2026112601-timers.js';
import * as checkins from './2026112602-checkins.js';
import * as push from './2026112603-push.js';
import * as escalation from './2026112604-escalation.js';
import * as unansweredSends from './2026112610-unanswered-sends.js';
import * as firstRealAlert from './2026112701-first-real-alert.js';
import * as checkinOwnerProof from './2026112801-checkin-owner-proof.js';
import * as escalationBudgets from './2026112803-escalation-budgets.js';
import * as deviceKeyNames from './2026112804-device-key-names.js';
import * as jobEngine from './2026112810-job-engine.js';
import * as dailyCheckin from './2026112812-daily-checkin.js';
import * as contactReplies from './2026112813-contact-replies.js';
import * as smsJobs from './2026112820-sms-jobs.js';
import * as timersKindDue from './2026112821-timers-kind-due.js';
import * as checkinProvenance from './2026120701-checkin-provenance.js';
import * as smsReplyReplays from './2026120702-sms-reply-replays.js';
import * as pinPlaces from './2026120703-pin-places.js';
import * as responderChannel from './2026120704-responder-channel.js';
import * as smsQueueColumns from './2026120705-sms-queue-columns.js';
import * as jobs from './2026120706-jobs.js';

/** Every migration, by name; names sort in the order they run. Add new ones here. */
export const migrations: Record<string, Migration> = {
  '2026112201-initial': initial,
  '2026112202-billing-sync': billingSync,
  '2026112203-live': live,
  '2026112310-abuse-limits': abuseLimits,
  '2026112320-contact-priority': contactPriority,
  '2026112330-display-name': displayName,
  '2026112501-owner-proof': ownerProof,
  '2026112502-mail-receipts': mailReceipts,
  '2026112503-login-devices': loginDevices,
  '2026112504-live-responders': liveResponders,
  '2026112601-timers': timers,
  '2026112602-checkins': checkins,
  '2026112603-push': push,
  '2026112604-escalation': escalation,
  '2026112610-unanswered-sends': unansweredSends,
  '2026112701-first-real-alert': firstRealAlert,
  '2026112801-checkin-owner-proof': checkinOwnerProof,
  '2026112803-escalation-budgets': escalationBudgets,
  '2026112804-device-key-names': deviceKeyNames,
  '2026112810-job-engine': jobEngine,
  '2026112812-daily-checkin': dailyCheckin,
  '2026112813-contact-replies': contactReplies,
  '2026112820-sms-jobs': smsJobs,
  '2026112821-timers-kind-due': timersKindDue,
  '2026120701-checkin-provenance': checkinProvenance,
  '2026120702-sms-reply-replays': smsReplyReplays,
  '2026120703-pin-places': pinPlaces,
  '2026120704-responder-channel': responderChannel,
  '2026120705-sms-queue-columns': smsQueueColumns,
  '2026120706-jobs': jobs,
};
