/**
 * What happens on an escalation call: the keys the contact pressed (1: "I'm on my way", in their
 * name, exactly as on the live page) and the call's progress. Twilio's callbacks and the dev
 * outbox's "press 1" both come here.
 */
import { CALL_VOICE_LANGUAGE, callReply, ESCALATION_ACK_DIGIT } from '../../../common/escalation-text.js';
import { shownName } from '../../../common/profile-rules.js';
import type { Deps } from '../../lib/deps.js';
import type { CallReport } from '../../providers/voice/port.js';
import { findById } from '../accounts/index.js';
import { alertById } from '../alerts/index.js';
import { addContactResponder } from '../live/index.js';
import { ownerLanguage } from '../owner/index.js';
import { callById, moveCall } from './repository.js';

export type CallDeps = Pick<Deps, 'db' | 'clock' | 'liveHub'>;

/**
 * The keys pressed on call `callId`: 1 records the contact's "I'm on my way" (once; the owner
 * sees it at once through the live hub) while the alert is unresolved. Answers what the call
 * says back, in the owner's language; null for an unknown call.
 */
export async function pressKeys(
  deps: CallDeps,
  callId: string,
  digits: string,
): Promise<{ say: string; language: string; acknowledged: boolean } | null> {
  const call = await callById(deps.db, callId);
  const alert = call ? await alertById(deps.db, call.alert_id) : undefined;
  const owner = alert ? await findById(deps.db, alert.user_id) : undefined;
  if (!call || !alert || !owner) return null;
  const helping = digits.trim().startsWith(ESCALATION_ACK_DIGIT);
  const now = deps.clock.now();
  if (helping) {
    await moveCall(deps.db, { id: call.id, status: 'acknowledged', now });
    if (alert.resolved_at === null) {
      await addContactResponder(deps.db, {
        alertId: alert.id,
        deliveryId: call.delivery_id,
        name: call.contact_name,
        now,
        channel: 'call',
      });
    }
    deps.liveHub.publish(alert.id);
  }
  const language = ownerLanguage(owner);
  return {
    say: callReply({ language, ownerName: shownName(owner), helping }),
    language: CALL_VOICE_LANGUAGE[language],
    acknowledged: helping,
  };
}

/** A status callback on call `callId`: its progress moves the call (never back from an end). */
export async function reportCall(deps: CallDeps, callId: string, report: CallReport): Promise<boolean> {
  const call = await callById(deps.db, callId);
  if (!call) return false;
  const moved = await moveCall(deps.db, {
    id: call.id,
    status: report.status,
    ...(report.providerCallId ? { providerCallId: report.providerCallId } : {}),
    ...(report.reason ? { error: report.reason } : {}),
    now: deps.clock.now(),
  });
  if (moved) deps.liveHub.publish(call.alert_id);
  return moved;
}
