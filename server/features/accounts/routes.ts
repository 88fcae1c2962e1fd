import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { limit } from '../../plugins/security.js';
import { deleteAccount } from './delete.js';
import { objectBody, Problems, requiredEmail } from './fields.js';
import { requestLanguage } from './language.js';
import { meView, updateMe } from './me.js';
import { register, resendVerification, verifyEmail } from './registration.js';
import { confirmReset, RESET_TEXTS, requestReset } from './reset.js';
import { login, logout, refresh } from './sessions.js';
import { createThrottles, take } from './throttle.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const GENERIC_TEXTS = {
  resend:
    'If an account with this e-mail address is waiting for verification, a new verification e-mail has been sent.',
  reset: 'If an account uses this e-mail address, a password reset e-mail has been sent.',
} as const;

/** The address of a reset or resend request, validated; every problem in one 400. */
function emailOf(body: unknown): string {
  const problems = new Problems();
  const email = requiredEmail(objectBody(body), problems);
  problems.throwIfAny({ withDetail: true });
  return email!;
}

/** Account routes of DESIGN §3: registration, verification, login, sessions, /me, reset, deletion. */
export default async function accountRoutes(app: FastifyInstance) {
  const throttles = createThrottles(app);
  const language = (request: FastifyRequest) => (saved?: string) => requestLanguage(request, saved);

  app.post(
    '/api/users/registration/',
    { config: { rateLimit: limit(app, { max: 10, timeWindow: HOUR }) } },
    async (request, reply) => reply.code(201).send(await register(app, request.body, requestLanguage(request))),
  );

  const verify = async (request: FastifyRequest<{ Params: { key: string } }>, reply: FastifyReply) => {
    const ok = await verifyEmail(app, request.params.key);
    return reply
      .header('cache-control', 'no-store')
      .redirect(ok ? '/email-confirmed' : '/resend-verification?error=invalid', 302);
  };
  app.get('/api/users/verify-email/:key/', verify);
  // Some mail clients drop a trailing slash from a link.
  app.get('/api/users/verify-email/:key', verify);

  app.post(
    '/api/users/resend-verification/',
    { config: { rateLimit: limit(app, { max: 5, timeWindow: HOUR }) } },
    async (request) => {
      const email = emailOf(request.body);
      take(throttles.resendByAddress, email);
      // After the answer, so neither it nor its timing tells a registered address from an unknown one.
      app.background.run(() => resendVerification(app, email, language(request)));
      return { detail: GENERIC_TEXTS.resend };
    },
  );

  app.post(
    '/api/users/auth/login/',
    { config: { rateLimit: limit(app, { max: 10, timeWindow: MINUTE }) } },
    async (request) => login(app, throttles, request.body, request.ip),
  );
  app.post(
    '/api/users/auth/refresh/',
    { config: { rateLimit: limit(app, { max: 60, timeWindow: MINUTE }) } },
    async (request) => refresh(app, request.body),
  );
  app.post('/api/users/auth/logout/', { onRequest: app.authenticate }, async (request, reply) => {
    await logout(app, request.sessionId);
    return reply.code(204).send();
  });

  app.get('/api/users/me/', { onRequest: app.authenticate }, async (request) => meView(app, request.user));
  app.patch('/api/users/me/', { onRequest: app.authenticate }, async (request) =>
    updateMe(app, request.user, request.body),
  );

  app.post(
    '/api/users/reset-password/',
    { config: { rateLimit: limit(app, { max: 5, timeWindow: HOUR }) } },
    async (request) => {
      const email = emailOf(request.body);
      take(throttles.resetByAddress, email);
      app.background.run(() => requestReset(app, email, language(request)));
      return { detail: GENERIC_TEXTS.reset };
    },
  );
  app.post(
    '/api/users/reset-password-confirm/',
    { config: { rateLimit: limit(app, { max: 10, timeWindow: MINUTE }) } },
    async (request) => {
      await confirmReset(app, request.body);
      return { detail: RESET_TEXTS.done };
    },
  );

  app.delete('/api/users/delete-account/', { onRequest: app.authenticate }, async (request, reply) => {
    await deleteAccount(app, request.user.id);
    return reply.code(204).send();
  });
}
