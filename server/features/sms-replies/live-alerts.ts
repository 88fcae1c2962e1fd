import { LIVE_PAGE_TTL_MS } from '../../../common/constants.js';
import { shownName } from '../../../common/profile-rules.js';
import type { Db } from '../../db/schema.js';
import { liveState } from '../live/index.js';
import { ownerLanguage } from '../owner/index.js';

/** An open real alert whose own SMS went to a number: what "on my way" by SMS answers. */
export interface OpenAlert {
  alertId: string;
  delivery: { id: string; contact_name: string };
  ownerName: string;
  language: 'pt' | 'en';
}

/**
 * The open real alerts (active on their live page) that sent their own SMS, with its contact
 * link, to `phone`: one per owner, the newest, newest owners first; with `only`, that alert
 * alone if it is one of them.
 */
export async function openAlertsOf(db: Db, phone: string, now: number, only?: string): Promise<OpenAlert[]> {
  let query = db
    .selectFrom('deliveries')
    .innerJoin('alerts', 'alerts.id', 'deliveries.alert_id')
    .innerJoin('users', 'users.id', 'alerts.user_id')
    .selectAll('alerts')
    .select([
      'deliveries.id as delivery_id',
      'deliveries.contact_name',
      'users.display_name',
      'users.username',
      'users.language',
    ])
    .where('deliveries.phone_number', '=', phone)
    .where('deliveries.kind', '=', 'alert')
    .where('deliveries.contact_key_hash', 'is not', null)
    .where('alerts.mode', '=', 'real')
    .where('alerts.resolved_at', 'is', null)
    .where('alerts.created_at', '>', now - LIVE_PAGE_TTL_MS)
    .orderBy('alerts.created_at', 'desc')
    .orderBy('alerts.id', 'desc');
  if (only !== undefined) query = query.where('alerts.id', '=', only);
  const rows = await query.execute();
  const byOwner = new Map<string, OpenAlert>();
  for (const row of rows) {
    if (byOwner.has(row.user_id) || liveState(row, now) !== 'active') continue;
    const owner = { display_name: row.display_name, username: row.username, language: row.language };
    byOwner.set(row.user_id, {
      alertId: row.id,
      delivery: { id: row.delivery_id, contact_name: row.contact_name },
      ownerName: shownName(owner),
      language: ownerLanguage(owner as Parameters<typeof ownerLanguage>[0]),
    });
  }
  return [...byOwner.values()];
}
