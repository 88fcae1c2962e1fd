/** Every route's contract, by area: what the server registers and the tests walk. */
import { accountsApi } from './accounts.js';
import { alertsApi } from './alerts.js';
import { billingApi } from './billing.js';
import { checkinsApi } from './checkins.js';
import { configApi } from './config.js';
import { contactsApi } from './contacts.js';
import { dailyApi } from './daily.js';
import { devicesApi } from './devices.js';
import { voiceApi } from './escalation.js';
import { healthApi } from './health.js';
import { liveApi } from './live.js';
import { openAlertsApi } from './open-alerts.js';
import type { ApiRoute } from './paths.js';
import { smsRepliesApi } from './sms-replies.js';

/** Typed by its routes only: the areas' full types together are more than a declaration file may spell out. */
export const API_CONTRACT: Readonly<Record<string, Readonly<Record<string, ApiRoute>>>> = {
  accountsApi,
  alertsApi,
  billingApi,
  checkinsApi,
  configApi,
  contactsApi,
  dailyApi,
  devicesApi,
  healthApi,
  liveApi,
  openAlertsApi,
  smsRepliesApi,
  voiceApi,
};
