/** The daily check-in (common/api/daily.ts): the owner's schedule, and "I'm OK today". */
import type { DailySettings, DailyView } from '../../common/api/daily';
import { dailyRoutes } from '../../common/api/routes';
import { call } from './client';

export type { DailySettings, DailyView };

export const fetchDaily = () => call(dailyRoutes.get).json<DailyView>();

export const saveDaily = (settings: DailySettings) => call(dailyRoutes.put, { json: settings }).json<DailyView>();

/** "I'm OK today" from the app: the signed-in session is the owner's proof. */
/** "I'm OK today" with the session; `notify`, while the missed day's alert is open, also sends the all-clear as it ends it. */
export const dailyOkNow = (token: string, notify?: boolean) =>
  call(dailyRoutes.ok, { token }, { json: notify === undefined ? {} : { notify } }).json<DailyView>();
