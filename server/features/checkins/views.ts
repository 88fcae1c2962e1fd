import type { CheckinView } from '../../../common/api/checkins.js';
import type { Checkin } from '../../db/schema.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/**
 * A check-in as the emergency page sees it. With the owner's proof: everything, and the ids of
 * the alert it fired. With the link alone: a fired check-in shows as fired without its alert's
 * ids (they open the owner's position on the live page) and without its note, and the owner's
 * own check-in never shows its note: a link can raise the alarm, never follow the owner.
 */
export function checkinView(checkin: Checkin, alertPublicId: string | null, linkOnly: boolean): CheckinView {
  const due = Number(checkin.due_at);
  const withheld = linkOnly && (checkin.status === 'fired' || Number(checkin.proven) === 1);
  return {
    id: checkin.id,
    status: checkin.status,
    due_at: new Date(due).toISOString(),
    grace_seconds: Number(checkin.grace_seconds),
    fires_at: new Date(due + Number(checkin.grace_seconds) * 1000).toISOString(),
    note: withheld ? null : checkin.note,
    created_at: new Date(Number(checkin.created_at)).toISOString(),
    ended_at: iso(checkin.ended_at),
    alert_id: linkOnly ? null : checkin.alert_id,
    alert_public_id: linkOnly ? null : alertPublicId,
  };
}
