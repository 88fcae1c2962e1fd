import type { CheckinView } from '../../../common/api/checkins.js';
import type { Checkin } from '../../db/schema.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** A check-in as the emergency page sees it; the public id of its alert when it fired. */
export function checkinView(checkin: Checkin, alertPublicId: string | null): CheckinView {
  const due = Number(checkin.due_at);
  return {
    id: checkin.id,
    status: checkin.status,
    due_at: new Date(due).toISOString(),
    grace_seconds: Number(checkin.grace_seconds),
    fires_at: new Date(due + Number(checkin.grace_seconds) * 1000).toISOString(),
    note: checkin.note,
    created_at: new Date(Number(checkin.created_at)).toISOString(),
    ended_at: iso(checkin.ended_at),
    alert_id: checkin.alert_id,
    alert_public_id: alertPublicId,
  };
}
