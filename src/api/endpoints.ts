/**
 * The calls of SPEC §7 and DESIGN.md §3, one function each: where each goes from the routes of
 * `common/api/routes.ts`, typed by the server's schemas in `common/api/` (types only).
 */
import type { z } from 'zod';
import type {
  emailRequest,
  loginRequest,
  MeUpdate,
  passwordChangeRequest,
  RegistrationRequest,
  resetConfirmRequest,
  rotatedToken,
} from '../../common/api/accounts';
import type { deviceKeyAnswer, OwnerAlert } from '../../common/api/alerts';
import type { planChoice, redirectUrl } from '../../common/api/billing';
import type { CheckinView } from '../../common/api/checkins';
import type { contactInput } from '../../common/api/contacts';
import { accountsRoutes, alertsRoutes, billingRoutes, checkinsRoutes, contactsRoutes } from '../../common/api/routes';
import { call, failureOf } from './client';
import type { Contact, Plan, Tokens, User } from './types';

type EmailBody = z.input<typeof emailRequest>;
type RedirectUrl = z.output<typeof redirectUrl>;

export const login = (username: string, password: string) =>
  call(accountsRoutes.login, {
    json: { username: username.trim().toLowerCase(), password } satisfies z.input<typeof loginRequest>,
  }).json<Tokens>();

/** Ends this login on the server: its refresh token stops working. */
export const endSession = () => call(accountsRoutes.logout);

/**
 * A new key for this device, issued to the signed-in owner: the emergency page sends it with
 * its alerts so the server knows they are the owner's own.
 */
export const issueDeviceKey = () => call(alertsRoutes.deviceKey, { json: {} }).json<z.output<typeof deviceKeyAnswer>>();

export const fetchMe = () => call(accountsRoutes.me).json<User>();

export const updateMe = (fields: MeUpdate) => call(accountsRoutes.updateMe, { json: fields }).json<User>();

/** Registers; the username is lowercased and an empty e-mail is left out (sent as undefined). */
export const register = (form: RegistrationRequest) =>
  call(accountsRoutes.register, {
    json: { ...form, username: form.username.trim().toLowerCase(), email: form.email.trim() || undefined },
  });

export const resendVerification = (email: string) =>
  call(accountsRoutes.resend, { json: { email } satisfies EmailBody });

export const requestPasswordReset = (email: string) =>
  call(accountsRoutes.reset, { json: { email } satisfies EmailBody });

export const confirmPasswordReset = (body: z.input<typeof resetConfirmRequest>) =>
  call(accountsRoutes.resetConfirm, { json: body });

/** A new password after the current one: the other logins and devices end, this one goes on. */
export const changePassword = (body: z.input<typeof passwordChangeRequest>) =>
  call(accountsRoutes.changePassword, { json: body });

export const deleteAccount = () => call(accountsRoutes.deleteAccount);

export const rotateToken = () => call(accountsRoutes.rotateToken).json<z.output<typeof rotatedToken>>();

/** The contacts; a non-array answer counts as none. */
export async function fetchContacts(): Promise<Contact[]> {
  const data = await call(contactsRoutes.list).json<unknown>();
  return Array.isArray(data) ? (data as Contact[]) : [];
}

/** Adds a contact; the answer is checked by the form before it is used (SPEC §5). */
export const addContact = (contact: z.input<typeof contactInput>) =>
  call(contactsRoutes.add, { json: contact }).json<unknown>();

/** Makes a contact the first alerted (on a plan with a lower limit); answers the list in its new order. */
export const alertFirst = (id: string) => call(contactsRoutes.alertFirst, { id }).json<Contact[]>();

export const removeContact = (id: string) => call(contactsRoutes.remove, { id });

/** Sends the contact the invitation SMS again (at most once a week); answers the contact. */
export const inviteContact = (id: string) => call(contactsRoutes.invite, { id }).json<Contact>();

export const startCheckout = (plan: Plan) => call(billingRoutes.checkout, { json: { plan } }).json<RedirectUrl>();

/** A subscriber's move to the other plan, through the payment provider's upgrade or downgrade. */
export const changePlan = (plan: Plan) =>
  call(billingRoutes.changePlan, { json: { plan } }).json<z.output<typeof planChoice>>();

export const openPortal = () => call(billingRoutes.portal).json<RedirectUrl>();

/** The owner's last alerts, newest first; a non-array answer counts as none. */
export async function fetchAlertHistory(): Promise<OwnerAlert[]> {
  const data = await call(alertsRoutes.history).json<unknown>();
  return Array.isArray(data) ? (data as OwnerAlert[]) : [];
}

/** The check-in behind the owner's token that runs or ended in the last hour; null when there is none (404). */
export async function fetchCurrentCheckin(token: string): Promise<CheckinView | null> {
  try {
    return await call(checkinsRoutes.current, { token }).json<CheckinView>();
  } catch (error) {
    if ((await failureOf(error)).status === 404) return null;
    throw error;
  }
}
