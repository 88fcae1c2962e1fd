/** The daily check-in (common/api/daily.ts): the owner's schedule, and "I'm OK today". */
import type { DailySettings, DailyView } from '../../common/api/daily';
import { dailyRoutes } from '../../common/api/routes';
import { call } from './client';

export type { DailySettings, DailyView };

export const fetchDaily = () => call(dailyRoutes.get).json<DailyView>();

export const saveDaily = (settings: DailySettings) => call(dailyRoutes.put, { json: settings }).json<DailyView>();

/** "I'm OK today" from the app: the signed-in session is the owner's proof. */
export const dailyOkNow = (token: string) => call(dailyRoutes.ok, { token }, { json: {} }).json<DailyView>();
