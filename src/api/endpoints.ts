import { api } from './client';
import type { Contact, Plan, Tokens, User } from './types';

/** The calls of SPEC §7 and DESIGN.md §3, one function each. */

export const login = (username: string, password: string) =>
  api.post('users/auth/login/', { json: { username: username.trim().toLowerCase(), password } }).json<Tokens>();

/** Ends this login on the server: its refresh token stops working. */
export const endSession = () => api.post('users/auth/logout/');

export const fetchMe = () => api.get('users/me/').json<User>();

export const updateMe = (
  fields: Partial<Pick<User, 'language' | 'display_name' | 'time_zone'> & { alert_countdown_seconds: number }>,
) => api.patch('users/me/', { json: fields }).json<User>();

export interface Registration {
  username: string;
  email: string;
  password1: string;
  password2: string;
  accept_terms: boolean;
}

/** Registers; the username is lowercased and an empty e-mail is left out (sent as undefined). */
export const register = (form: Registration) =>
  api.post('users/registration/', {
    json: { ...form, username: form.username.trim().toLowerCase(), email: form.email.trim() || undefined },
  });

export const resendVerification = (email: string) => api.post('users/resend-verification/', { json: { email } });

export const requestPasswordReset = (email: string) => api.post('users/reset-password/', { json: { email } });

export const confirmPasswordReset = (body: {
  uid: string;
  token: string;
  new_password1: string;
  new_password2: string;
}) => api.post('users/reset-password-confirm/', { json: body });

export const deleteAccount = () => api.delete('users/delete-account/');

export const rotateToken = () => api.post('users/token/rotate/').json<{ token: string }>();

/** The contacts; a non-array answer counts as none. */
export async function fetchContacts(): Promise<Contact[]> {
  const data = await api.get('emergency/contacts/').json<unknown>();
  return Array.isArray(data) ? (data as Contact[]) : [];
}

export const addContact = (contact: { name: string; phone_number: string; relationship: string }) =>
  api.post('emergency/contacts/', { json: contact }).json<unknown>();

/** Makes a contact the first alerted (on a plan with a lower limit); answers the list in its new order. */
export const alertFirst = (id: string) =>
  api.post(`emergency/contacts/${encodeURIComponent(id)}/alert-first/`).json<Contact[]>();

export const removeContact = (id: string) => api.delete(`emergency/contacts/${encodeURIComponent(id)}/`);

export const startCheckout = (plan: Plan) => api.post('billing/checkout/', { json: { plan } }).json<{ url: string }>();

/** A subscriber's move to the other plan, through the payment provider's upgrade or downgrade. */
export const changePlan = (plan: Plan) => api.post('billing/plan/', { json: { plan } }).json<{ plan: Plan }>();

export const openPortal = () => api.post('billing/portal/').json<{ url: string }>();
