/** Every route's contract, by area: what the server registers and the tests walk. */
import { accountsApi } from './accounts.js';
import { alertsApi } from './alerts.js';
import { billingApi } from './billing.js';
import { checkinsApi } from './checkins.js';
import { configApi } from './config.js';
import { contactsApi } from './contacts.js';
import { voiceApi } from './escalation.js';
import { healthApi } from './health.js';
import { liveApi } from './live.js';

export const API_CONTRACT = {
  accountsApi,
  alertsApi,
  billingApi,
  checkinsApi,
  configApi,
  contactsApi,
  healthApi,
  liveApi,
  voiceApi,
};
