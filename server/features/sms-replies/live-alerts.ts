import { shownName } from '../../../common/profile-rules.js';
import type { Db } from '../../db/schema.js';
import { liveState } from '../live/index.js';
import { ownerLanguage } from '../owner/index.js';
import { alertsSentTo } from './repository.js';

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
  const rows = await alertsSentTo(db, phone, now, only);
  const byOwner = new Map<string, OpenAlert>();
  for (const row of rows) {
    if (byOwner.has(row.user_id) || liveState(row, now) !== 'active') continue;
    const owner = { display_name: row.display_name, username: row.username, language: row.language };
    byOwner.set(row.user_id, {
      alertId: row.id,
      delivery: { id: row.delivery_id, contact_name: row.contact_name },
      ownerName: shownName(owner),
      language: ownerLanguage(owner),
    });
  }
  return [...byOwner.values()];
}
