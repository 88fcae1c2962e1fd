import type { OpenAlert } from '../../../common/api/open-alerts.js';
import type { Alert, AlertReason } from '../../db/schema.js';
import { iso } from '../../lib/dates.js';
import type { Deps } from '../../lib/deps.js';
import { callsOf } from '../escalation/index.js';
import { livePageUrl, liveState, respondersOf, shownResponder } from '../live/index.js';
import { deliveriesOf, openRealAlerts } from './repository.js';
import { alertView } from './views.js';
import { sinceOf } from './why.js';

/** More open at once than any owner has: a flood of link-only alerts is ended a page at a time. */
const MOST_SHOWN = 20;

/**
 * The owner's real alerts still active on their live page (never a duress alert), newest first:
 * at most `most`, or every one of `reason` whatever came after it.
 */
export async function openAlertRows(
  deps: Pick<Deps, 'db' | 'clock'>,
  userId: string,
  which: { most: number } | { reason: AlertReason },
): Promise<Alert[]> {
  const now = deps.clock.now();
  const rows = await openRealAlerts(deps.db, userId, now, which);
  return rows.filter((alert) => liveState(alert, now) === 'active');
}

/**
 * The owner's real alerts still active on their live page, newest first, with what the pages show
 * beside "I'm safe": why and since when, the deliveries and calls, who is on the way. Never a
 * duress alert: the page that lists them may be in the hands of whoever forced the PIN.
 */
export async function openAlertsOf(deps: Pick<Deps, 'db' | 'clock' | 'config'>, userId: string): Promise<OpenAlert[]> {
  const open = await openAlertRows(deps, userId, { most: MOST_SHOWN });
  const ids = open.map((alert) => alert.id);
  const [deliveries, calls] = await Promise.all([deliveriesOf(deps.db, ids), callsOf(deps.db, ids)]);
  return Promise.all(
    open.map(async (alert) => {
      const [responders, since] = await Promise.all([respondersOf(deps.db, alert.id), sinceOf(deps.db, alert)]);
      return {
        ...alertView(
          alert,
          deliveries.filter((d) => d.alert_id === alert.id),
          calls.filter((c) => c.alert_id === alert.id),
        ),
        since: since === null ? null : iso(since),
        live_url: livePageUrl(deps.config.APP_URL, alert.public_id),
        responders: responders.map(shownResponder),
      };
    }),
  );
}
