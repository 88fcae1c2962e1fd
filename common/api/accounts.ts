/**
 * Account routes of DESIGN.md §3: registration, verification, login and sessions, `/me`,
 * password reset, deletion and the personal token. Field problems answer in the Django REST
 * wording with a code per field, all of a request's problems together.
 */
import { z } from 'zod';
import {
  emailField,
  foldIdentifier,
  newPasswordField,
  passwordField,
  repeated,
  termsField,
  text,
  usernameField,
} from './account-fields.js';
import { withDetail } from './errors.js';
import { me, meUpdate } from './me.js';
import { accountsRoutes } from './routes.js';
import { type Contract, detailAnswer, errorResponses, noContent, operation, SECURITY } from './shared.js';

export { ACCOUNT_TEXTS, emailField, PASSWORD_MAX, USERNAME_MAX } from './account-fields.js';

/**
 * `POST /api/users/registration/`. The password rules here are the browser's (SPEC §5); the
 * server also refuses the 20,000 most common passwords, a list too big for the page.
 */
export const registrationRequest = z
  .object({
    username: usernameField,
    email: emailField.describe('Required: alerts go out only from a verified address.'),
    password1: newPasswordField(),
    password2: passwordField,
    accept_terms: termsField,
  })
  .superRefine(repeated('password1', 'password2'))
  .meta({ id: 'Registration' });

export type RegistrationRequest = z.input<typeof registrationRequest>;

export const loginRequest = z
  .object({
    username: text({ trim: true }).overwrite(foldIdentifier).describe('Username or e-mail address, in any case.'),
    password: text(),
  })
  .meta({ id: 'Login' });

export const tokenPair = z.object({ access: z.string(), refresh: z.string() }).meta({ id: 'TokenPair' });
export type TokenPair = z.output<typeof tokenPair>;

export const refreshRequest = z.object({ refresh: text() }).meta({ id: 'Refresh' });

/** Reset and resend: a problem's first text is also the answer's `detail` (SPEC §7). */
export const emailRequest = withDetail(z.object({ email: emailField }).meta({ id: 'EmailAddress' }));

export const resetConfirmRequest = withDetail(
  z
    .object({
      uid: text({ trim: true, max: 200 }),
      token: text({ trim: true, max: 200 }),
      new_password1: passwordField,
      new_password2: passwordField,
    })
    .meta({ id: 'ResetConfirm' }),
);

/** The new password of a reset, checked once its link is known to be good. */
export const newPasswordCheck = (commonList?: ReadonlySet<string>) =>
  withDetail(
    z
      .looseObject({ new_password1: newPasswordField(commonList), new_password2: z.string() })
      .superRefine(repeated('new_password1', 'new_password2')),
  );

/**
 * `POST /api/users/me/password/`: the signed-in owner's current password and the new one twice
 * (the new one under the rules of a reset, checked on the server with its list).
 */
export const passwordChangeRequest = z
  .object({
    current_password: passwordField,
    new_password1: passwordField,
    new_password2: passwordField,
  })
  .meta({ id: 'PasswordChange' });

/** The field error of a wrong current password. */
export const WRONG_PASSWORD = 'Your current password is not correct.';

export { type Me, type MeUpdate, me, meUpdate, PIN_MESSAGES, type Profile, profile } from './me.js';

export const rotatedToken = z.object({ token: z.string() }).meta({ id: 'Token' });

const accounts = { tags: ['accounts'] } as const;

export const accountsApi = {
  register: {
    ...accountsRoutes.register,
    ...operation('register', 'Create an account', SECURITY.none),
    ...accounts,
    description:
      'Creates an account and mails its verification link. An address already registered gets the same answer (its holder a notice), so nobody learns who is registered.',
    body: registrationRequest,
    response: { 201: detailAnswer, ...errorResponses(400, 429) },
  },
  verifyEmail: {
    ...accountsRoutes.verifyEmail,
    ...operation('verifyEmail', 'Verify an e-mail address (the link of the e-mail)', SECURITY.none),
    ...accounts,
    description: 'The link of the verification e-mail: verifies and redirects to `/email-confirmed`.',
    params: z.object({ key: z.string() }),
    response: { 302: noContent },
  },
  resend: {
    ...accountsRoutes.resend,
    ...operation('resendVerification', 'Send the verification e-mail again', SECURITY.none),
    ...accounts,
    description: 'Mails a new verification link if the address waits for one; the same answer either way.',
    body: emailRequest,
    response: { 200: detailAnswer, ...errorResponses(400, 429) },
  },
  login: {
    ...accountsRoutes.login,
    ...operation('login', 'Log in', SECURITY.none),
    ...accounts,
    description:
      'A new login; a successful one sets the login device cookie (HttpOnly, SameSite=Strict, for /api/users/). Failures are limited per identifier and client address (5 in 15 minutes); past 5 an hour from anywhere the answer waits longer with each, up to 3 s, but is never refused. A browser whose device cookie names this account skips both.',
    body: loginRequest,
    response: { 200: tokenPair, ...errorResponses(400, 401, 403, 429) },
  },
  refresh: {
    ...accountsRoutes.refresh,
    ...operation('refreshTokens', 'Swap a refresh token for a new pair', SECURITY.none),
    ...accounts,
    description:
      'Swaps a refresh token for a new pair; each works once (a used one presented again within 30 s by the client that used it, by address and User-Agent or device cookie, answers its successor once; anything else ends the login).',
    body: refreshRequest,
    response: { 200: tokenPair, ...errorResponses(400, 401, 429) },
  },
  logout: {
    ...accountsRoutes.logout,
    ...operation('logout', 'Log out', SECURITY.session),
    ...accounts,
    description: 'Ends this login: its tokens stop working at once.',
    response: { 204: noContent, ...errorResponses(401) },
  },
  me: {
    ...accountsRoutes.me,
    ...operation('getMe', 'Get the signed-in account', SECURITY.session),
    ...accounts,
    response: { 200: me, ...errorResponses(401) },
  },
  updateMe: {
    ...accountsRoutes.updateMe,
    ...operation('updateMe', 'Change the signed-in account’s settings', SECURITY.session),
    ...accounts,
    body: meUpdate,
    response: { 200: me, ...errorResponses(400, 401) },
  },
  changePassword: {
    ...accountsRoutes.changePassword,
    ...operation('changePassword', 'Change the password', SECURITY.session),
    ...accounts,
    description:
      'Sets a new password after the current one: every other login of the account and every device key this login did not issue end at once; this login and its keys go on. A wrong current password is a 400 on `current_password`, counted under the login limits of the username (5 in 15 minutes from one address, then 429).',
    body: passwordChangeRequest,
    response: { 204: noContent, ...errorResponses(400, 401, 429) },
  },
  reset: {
    ...accountsRoutes.reset,
    ...operation('requestPasswordReset', 'Mail a password reset link', SECURITY.none),
    ...accounts,
    description: 'Mails a password reset link if an account uses the address; the same answer either way.',
    body: emailRequest,
    response: { 200: detailAnswer, ...errorResponses(400, 429) },
  },
  resetConfirm: {
    ...accountsRoutes.resetConfirm,
    ...operation('confirmPasswordReset', 'Set a new password from a reset link', SECURITY.none),
    ...accounts,
    description: 'Sets a new password from a reset link (once, within an hour); every login ends.',
    body: resetConfirmRequest,
    response: { 200: detailAnswer, ...errorResponses(400, 429) },
  },
  deleteAccount: {
    ...accountsRoutes.deleteAccount,
    ...operation('deleteAccount', 'Delete the account', SECURITY.session),
    ...accounts,
    description: 'Cancels the subscription at the provider, then deletes the account and everything of it.',
    response: { 204: noContent, ...errorResponses(401, 502) },
  },
  rotateToken: {
    ...accountsRoutes.rotateToken,
    ...operation('rotateLinkToken', 'Replace the personal emergency link', SECURITY.session),
    ...accounts,
    description: 'A new personal token: the old emergency links stop working at once. 5 an hour.',
    response: { 200: rotatedToken, ...errorResponses(401, 402, 429) },
  },
} as const satisfies Contract<typeof accountsRoutes>;
