/**
 * The calls of SPEC §7 and DESIGN.md §3, one function each, typed by the server's schemas in
 * `common/api/` (types only).
 */
import type { z } from 'zod';
import type {
  emailRequest,
  loginRequest,
  MeUpdate,
  RegistrationRequest,
  resetConfirmRequest,
  rotatedToken,
} from '../../common/api/accounts';
import type { deviceKeyAnswer } from '../../common/api/alerts';
import type { planChoice, redirectUrl } from '../../common/api/billing';
import type { contactInput } from '../../common/api/contacts';
import { api } from './client';
import type { Contact, Plan, Tokens, User } from './types';

type EmailBody = z.input<typeof emailRequest>;
type RedirectUrl = z.output<typeof redirectUrl>;

export const login = (username: string, password: string) =>
  api
    .post('users/auth/login/', {
      json: { username: username.trim().toLowerCase(), password } satisfies z.input<typeof loginRequest>,
    })
    .json<Tokens>();

/** Ends this login on the server: its refresh token stops working. */
export const endSession = () => api.post('users/auth/logout/');

/**
 * A new key for this device, issued to the signed-in owner: the emergency page sends it with
 * its alerts so the server knows they are the owner's own.
 */
export const issueDeviceKey = () =>
  api.post('users/me/device-keys/', { json: {} }).json<z.output<typeof deviceKeyAnswer>>();

export const fetchMe = () => api.get('users/me/').json<User>();

export const updateMe = (fields: MeUpdate) => api.patch('users/me/', { json: fields }).json<User>();

/** Registers; the username is lowercased and an empty e-mail is left out (sent as undefined). */
export const register = (form: RegistrationRequest) =>
  api.post('users/registration/', {
    json: { ...form, username: form.username.trim().toLowerCase(), email: form.email.trim() || undefined },
  });

export const resendVerification = (email: string) =>
  api.post('users/resend-verification/', { json: { email } satisfies EmailBody });

export const requestPasswordReset = (email: string) =>
  api.post('users/reset-password/', { json: { email } satisfies EmailBody });

export const confirmPasswordReset = (body: z.input<typeof resetConfirmRequest>) =>
  api.post('users/reset-password-confirm/', { json: body });

export const deleteAccount = () => api.delete('users/delete-account/');

export const rotateToken = () => api.post('users/token/rotate/').json<z.output<typeof rotatedToken>>();

/** The contacts; a non-array answer counts as none. */
export async function fetchContacts(): Promise<Contact[]> {
  const data = await api.get('emergency/contacts/').json<unknown>();
  return Array.isArray(data) ? (data as Contact[]) : [];
}

/** Adds a contact; the answer is checked by the form before it is used (SPEC §5). */
export const addContact = (contact: z.input<typeof contactInput>) =>
  api.post('emergency/contacts/', { json: contact }).json<unknown>();

/** Makes a contact the first alerted (on a plan with a lower limit); answers the list in its new order. */
export const alertFirst = (id: string) =>
  api.post(`emergency/contacts/${encodeURIComponent(id)}/alert-first/`).json<Contact[]>();

export const removeContact = (id: string) => api.delete(`emergency/contacts/${encodeURIComponent(id)}/`);

export const startCheckout = (plan: Plan) => api.post('billing/checkout/', { json: { plan } }).json<RedirectUrl>();

/** A subscriber's move to the other plan, through the payment provider's upgrade or downgrade. */
export const changePlan = (plan: Plan) =>
  api.post('billing/plan/', { json: { plan } }).json<z.output<typeof planChoice>>();

export const openPortal = () => api.post('billing/portal/').json<RedirectUrl>();
