import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { User } from '../db/schema.js';
import { notAuthenticated } from '../lib/errors.js';
import { DAY } from '../lib/time.js';

export const ACCESS_TOKEN_TTL_MS = 15 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * DAY;
const ISSUER = 'alerta';

export interface AccessClaims {
  sub: string;
  sid: string;
}

export interface RefreshClaims {
  sub: string;
  sid: string;
  jti: string;
}

/** Signs and checks the HS256 JWTs; `now` comes from the app clock so tests can move time. */
export interface TokenService {
  signAccess(userId: string, sessionId: string): Promise<string>;
  signRefresh(userId: string, sessionId: string, jti: string): Promise<string>;
  verifyAccess(token: string): Promise<AccessClaims | null>;
  verifyRefresh(token: string): Promise<RefreshClaims | null>;
  /** A secret derived from the server's secret and `label` (HMAC-SHA256, base64url): the same label gives the same secret. */
  derive(label: string): string;
}

export function createTokenService(secret: string, now: () => number): TokenService {
  const key = new TextEncoder().encode(secret);
  const sign = (claims: Record<string, string>, subject: string, ttlMs: number) => {
    const iat = Math.floor(now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(subject)
      .setIssuedAt(iat)
      .setExpirationTime(iat + Math.floor(ttlMs / 1000))
      .sign(key);
  };
  const verify = async (token: string, type: 'access' | 'refresh') => {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        currentDate: new Date(now()),
      });
      if (payload.typ !== type || typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null;
      return payload;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
      throw error;
    }
  };
  return {
    signAccess: (userId, sessionId) => sign({ typ: 'access', sid: sessionId }, userId, ACCESS_TOKEN_TTL_MS),
    signRefresh: (userId, sessionId, jti) =>
      sign({ typ: 'refresh', sid: sessionId, jti }, userId, REFRESH_TOKEN_TTL_MS),
    async verifyAccess(token) {
      const payload = await verify(token, 'access');
      return payload ? { sub: payload.sub as string, sid: payload.sid as string } : null;
    },
    derive: (label) => createHmac('sha256', key).update(label).digest('base64url'),
    async verifyRefresh(token) {
      const payload = await verify(token, 'refresh');
      if (!payload || typeof payload.jti !== 'string') return null;
      return { sub: payload.sub as string, sid: payload.sid as string, jti: payload.jti };
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    tokens: TokenService;
    /** onRequest hook: requires a valid access token for a live session and an existing user. */
    authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void>;
    /** The user and session an `Authorization: Bearer <access>` header names, when both are live; else null. */
    liveSession(authorization: string | undefined): Promise<{ user: User; sessionId: string } | null>;
  }
  interface FastifyRequest {
    /** The authenticated user; set by `app.authenticate`. */
    user: User;
    sessionId: string;
  }
}

export default fp(
  async function auth(app: FastifyInstance, options: { secret: string }) {
    app.decorate(
      'tokens',
      createTokenService(options.secret, () => app.clock.now()),
    );
    app.decorateRequest('user', null as unknown as User);
    app.decorateRequest('sessionId', '');
    app.decorate('liveSession', async (authorization: string | undefined) => {
      const match = authorization?.match(/^Bearer\s+(\S+)$/i);
      if (!match?.[1]) return null;
      const claims = await app.tokens.verifyAccess(match[1]);
      if (!claims) return null;
      // One read checks both: the session is live and the user still exists.
      const row = await app.db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .selectAll('users')
        .where('sessions.id', '=', claims.sid)
        .where('sessions.user_id', '=', claims.sub)
        .where('sessions.revoked_at', 'is', null)
        .executeTakeFirst();
      return row ? { user: row, sessionId: claims.sid } : null;
    });
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const session = await app.liveSession(request.headers.authorization);
      if (!session) throw notAuthenticated();
      request.user = session.user;
      request.sessionId = session.sessionId;
    });
  },
  { name: 'auth', dependencies: ['database', 'clock'] },
);
