/**
 * Where each route of the API answers: its method and its URL pattern, written once. The
 * contract in this folder spreads each into its route's entry (the server registers from
 * those); the app and the pages build their paths from these with `pathOf`. No zod here, so
 * the emergency page and the service worker carry none of it.
 */
import { at, patternOf } from './paths.js';

export const accountsRoutes = {
  register: at('POST', '/api/users/registration/'),
  verifyEmail: at('GET', '/api/users/verify-email/:key/'),
  resend: at('POST', '/api/users/resend-verification/'),
  login: at('POST', '/api/users/auth/login/'),
  refresh: at('POST', '/api/users/auth/refresh/'),
  logout: at('POST', '/api/users/auth/logout/'),
  me: at('GET', '/api/users/me/'),
  updateMe: at('PATCH', '/api/users/me/'),
  changePassword: at('POST', '/api/users/me/password/'),
  reset: at('POST', '/api/users/reset-password/'),
  resetConfirm: at('POST', '/api/users/reset-password-confirm/'),
  deleteAccount: at('DELETE', '/api/users/delete-account/'),
  rotateToken: at('POST', '/api/users/token/rotate/'),
} as const;

/** The owner's devices: the device keys their logins gave emergency pages, and ending every login. */
export const devicesRoutes = {
  list: at('GET', '/api/users/me/devices/'),
  remove: at('DELETE', '/api/users/me/devices/:id/'),
  logoutEverywhere: at('POST', '/api/users/auth/logout-all/'),
} as const;

/** The daily check-in: the owner's schedule (session), and "I'm OK today" under the personal link (owner's proof). */
export const dailyRoutes = {
  get: at('GET', '/api/users/me/daily-checkin/'),
  put: at('PUT', '/api/users/me/daily-checkin/'),
  status: at('GET', '/api/emergency/public/:token/daily/'),
  ok: at('POST', '/api/emergency/public/:token/daily/ok/'),
} as const;

export const alertsRoutes = {
  page: at('GET', '/api/emergency/public/:token/'),
  send: at('POST', '/api/emergency/public/:token/alerts/'),
  get: at('GET', '/api/emergency/public/:token/alerts/:id/'),
  deviceKey: at('POST', '/api/users/me/device-keys/'),
  history: at('GET', '/api/emergency/alerts/'),
  smsStatus: at('POST', '/api/sms/status/'),
} as const;

export const billingRoutes = {
  checkout: at('POST', '/api/billing/checkout/'),
  changePlan: at('POST', '/api/billing/plan/'),
  portal: at('POST', '/api/billing/portal/'),
  webhook: at('POST', '/api/billing/webhook/'),
} as const;

export const configRoutes = { get: at('GET', '/api/config/') } as const;

export const contactsRoutes = {
  list: at('GET', '/api/emergency/contacts/'),
  add: at('POST', '/api/emergency/contacts/'),
  alertFirst: at('POST', '/api/emergency/contacts/:id/alert-first/'),
  remove: at('DELETE', '/api/emergency/contacts/:id/'),
  invite: at('POST', '/api/emergency/contacts/:id/invite/'),
} as const;

export const healthRoutes = { get: at('GET', '/api/health'), ready: at('GET', '/api/ready') } as const;

export const liveRoutes = {
  position: at('POST', '/api/emergency/public/:token/alerts/:id/location/'),
  sender: at('GET', '/api/emergency/public/:token/alerts/:id/live/'),
  resolve: at('POST', '/api/emergency/public/:token/alerts/:id/resolve/'),
  view: at('GET', '/api/live/:publicId/'),
  ack: at('POST', '/api/live/:publicId/ack/'),
  events: at('GET', '/api/live/:publicId/events'),
} as const;

/** The owner's open alerts under the personal link, with the owner's proof: what the pages offer to end. */
export const openAlertsRoutes = { list: at('GET', '/api/emergency/public/:token/open-alerts/') } as const;

/** Check-ins: a timer the server holds; an alert goes out by itself when it is not ended in time. */
export const checkinsRoutes = {
  start: at('POST', '/api/emergency/public/:token/checkins/'),
  current: at('GET', '/api/emergency/public/:token/checkins/current/'),
  location: at('POST', '/api/emergency/public/:token/checkins/:id/location/'),
  extend: at('POST', '/api/emergency/public/:token/checkins/:id/extend/'),
  done: at('POST', '/api/emergency/public/:token/checkins/:id/done/'),
  subscribePush: at('POST', '/api/emergency/public/:token/push-subscriptions/'),
} as const;

/** The alert POST's paths (`/api/emergency/public/{token}/alerts/`): the service worker sends or queues these. */
export const ALERT_POST_PATH = patternOf(alertsRoutes.send);
/** A live position update's paths (`…/alerts/{id}/location/`), queued like an alert. */
export const POSITION_POST_PATH = patternOf(liveRoutes.position);

/** The voice provider's callbacks on the escalation calls (Twilio). */
export const voiceRoutes = {
  gather: at('POST', '/api/voice/gather/'),
  status: at('POST', '/api/voice/status/'),
} as const;

export const smsRepliesRoutes = { inbound: at('POST', '/api/sms/inbound/') } as const;
