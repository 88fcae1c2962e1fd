import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { accountsApi } from '../../../common/api/accounts.js';
import { served } from '../../../common/api/shared.js';
import { HOUR, MINUTE, SECOND } from '../../lib/time.js';
import { limit } from '../../plugins/security.js';
import { deleteAccount } from './delete.js';
import deviceRoutes from './device-routes.js';
import {
  type Client,
  DEVICE_COOKIE,
  DEVICE_COOKIE_MAX_AGE_MS,
  DEVICE_COOKIE_PATH,
  deviceCookieValue,
  deviceOf,
  type LoginDevice,
} from './devices.js';
import { requestLanguage } from './language.js';
import { pruneMailBursts } from './mail-bursts-repository.js';
import { summaryJob } from './mail-summaries.js';
import { meView, updateMe } from './me.js';
import { changePassword } from './password-change.js';
import { register, registrationSummary, resendVerification, verifyEmail } from './registration.js';
import { confirmReset, RESET_TEXTS, requestReset, resetSummary } from './reset.js';
import { login, logout, refresh } from './sessions.js';
import { createThrottles } from './throttle.js';

export const GENERIC_TEXTS = {
  resend:
    'If an account with this e-mail address is waiting for verification, a new verification e-mail has been sent.',
  reset: 'If an account uses this e-mail address, a password reset e-mail has been sent.',
} as const;

/** The login device cookie the request carries (devices.ts), when it is one this server signed; null otherwise. */
function presentedDevice(request: FastifyRequest): LoginDevice | null {
  const raw = request.cookies?.[DEVICE_COOKIE];
  if (!raw || raw.length > 300) return null;
  const unsigned = request.unsignCookie(raw);
  return unsigned.valid && unsigned.value ? deviceOf(unsigned.value) : null;
}

/** Sets (or renews for another year) the device cookie of a browser that just logged in. */
function rememberDevice(request: FastifyRequest, reply: FastifyReply, device: LoginDevice): void {
  reply.setCookie(DEVICE_COOKIE, deviceCookieValue(device), {
    signed: true,
    httpOnly: true,
    secure: request.protocol === 'https',
    sameSite: 'strict',
    path: DEVICE_COOKIE_PATH,
    maxAge: DEVICE_COOKIE_MAX_AGE_MS / SECOND,
  });
}

/** Who is logging in or refreshing: what the limits and the refresh grace read of the request. */
const clientOf = (request: FastifyRequest): Client => ({
  ip: request.ip,
  userAgent: request.headers['user-agent'] ?? '',
  device: presentedDevice(request),
});

/** Account routes of DESIGN §3: registration, verification, login and sessions, /me, reset, deletion. */
export default async function accountRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // The accounts' jobs: the summary mail of each e-mail burst (each feature adds its bursts'), and
  // the pruning of old bursts.
  app.summaryMails.add('registration_notice', (user, count, since) => registrationSummary(app, user, count, since));
  app.summaryMails.add('password_reset', (user, count, since) => resetSummary(app, user, count, since));
  app.addHook('onReady', async () => app.summaryMails.ready());
  app.jobs.handle('mail-summary', summaryJob(app, app.summaryMails));
  app.jobs.every('mail-bursts-prune', () => pruneMailBursts(app.db, app.clock.now()));
  // Only for the login device cookie (devices.ts), signed with a secret of its own.
  await app.register(cookie, { secret: app.tokens.derive('login-device-cookie') });
  const throttles = createThrottles(app);
  const language = (request: FastifyRequest) => (saved?: string) =>
    requestLanguage(request.headers['accept-language'], saved);
  const perAddress = (max: number, timeWindow: number) => ({ config: { rateLimit: limit(app, { max, timeWindow }) } });

  app.route({
    ...served(accountsApi.register),
    ...perAddress(10, HOUR),
    handler: async (request, reply) =>
      reply.code(201).send(await register(app, request.body, requestLanguage(request.headers['accept-language']))),
  });

  const verify = async (request: FastifyRequest<{ Params: { key: string } }>, reply: FastifyReply) => {
    const ok = await verifyEmail(app, request.params.key);
    return reply
      .header('cache-control', 'no-store')
      .redirect(ok ? '/email-confirmed' : '/resend-verification?error=invalid', 302);
  };
  app.route({ ...served(accountsApi.verifyEmail), handler: verify });
  // Some mail clients drop a trailing slash from a link.
  app.get(accountsApi.verifyEmail.url.replace(/\/$/, ''), { schema: { hide: true } }, verify);

  app.route({
    ...served(accountsApi.resend),
    ...perAddress(5, HOUR),
    handler: async (request) => {
      await throttles.resendByAddress.take(request.body.email);
      // After the answer, so neither it nor its timing tells a registered address from an unknown one.
      app.background.run(() => resendVerification(app, request.body.email, language(request)));
      return { detail: GENERIC_TEXTS.resend };
    },
  });

  app.route({
    ...served(accountsApi.login),
    ...perAddress(10, MINUTE),
    handler: async (request, reply) => {
      const { tokens, device } = await login(app, throttles, clientOf(request), request.body);
      rememberDevice(request, reply, device);
      return tokens;
    },
  });
  app.route({
    ...served(accountsApi.refresh),
    ...perAddress(60, MINUTE),
    handler: async (request) => refresh(app, clientOf(request), request.body.refresh),
  });
  app.route({
    ...served(accountsApi.logout),
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      await logout(app, request.sessionId);
      return reply.code(204).send();
    },
  });

  await app.register(deviceRoutes);

  app.route({
    ...served(accountsApi.me),
    onRequest: app.authenticate,
    handler: async (request) => meView(app, request.user),
  });
  app.route({
    ...served(accountsApi.updateMe),
    onRequest: app.authenticate,
    handler: async (request) => updateMe(app, request.user, request.body),
  });

  app.route({
    ...served(accountsApi.changePassword),
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      const signedIn = { user: request.user, sessionId: request.sessionId };
      await changePassword(app, throttles, clientOf(request), signedIn, request.body);
      return reply.code(204).send();
    },
  });

  app.route({
    ...served(accountsApi.reset),
    ...perAddress(5, HOUR),
    handler: async (request) => {
      await throttles.resetByAddress.take(request.body.email);
      app.background.run(() => requestReset(app, request.body.email, language(request)));
      return { detail: GENERIC_TEXTS.reset };
    },
  });
  app.route({
    ...served(accountsApi.resetConfirm),
    ...perAddress(10, MINUTE),
    handler: async (request) => {
      await confirmReset(app, request.body);
      return { detail: RESET_TEXTS.done };
    },
  });

  app.route({
    ...served(accountsApi.deleteAccount),
    onRequest: app.authenticate,
    handler: async (request, reply) => {
      await deleteAccount(app, request.user.id);
      return reply.code(204).send();
    },
  });
}
